"""docs/api/openapi.yaml against the HTTP door it describes: the document is valid OpenAPI 3.1,
its (method, path, scope) set is the door's route table (`tollgate http-routes --json`), and a
live `tollgate serve --http-listen` answers every route as documented: without a key a 401
problem document (but /healthz), an admin route with a read key a 403, and every answer's body
valid against the response schema the document gives for its status."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import pytest
import yaml
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from doors_server import REPO, DoorsServer, tollgate_bin
from http_server import start_http_only

SPEC_PATH = REPO / "docs" / "api" / "openapi.yaml"
METHODS = ("get", "post", "delete", "put", "patch")


@pytest.fixture(scope="module")
def spec() -> dict:
    return yaml.safe_load(SPEC_PATH.read_text())


@pytest.fixture(scope="module")
def routes() -> list[dict]:
    output = subprocess.run([tollgate_bin(), "http-routes", "--json"], check=True, capture_output=True, text=True)
    return json.loads(output.stdout)


@pytest.fixture(scope="module")
def http(stock_database: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DoorsServer]:
    server = start_http_only(stock_database, tmp_path_factory.mktemp("openapi-serve"))
    yield server
    server.stop()


def operations(spec: dict) -> Iterator[tuple[str, str, dict]]:
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield method.upper(), path, item[method]


def test_document_is_valid_openapi_3_1(spec: dict) -> None:
    assert spec["openapi"].startswith("3.1")
    validate(spec)


def test_document_has_every_route_and_scope(spec: dict, routes: list[dict]) -> None:
    documented = {(method, path, operation.get("x-tollgate-scope"), operation["operationId"])
                  for method, path, operation in operations(spec)}
    served = {(route["method"], route["path"], route["scope"] or "none", route["operationId"]) for route in routes}
    assert documented == served


def test_document_says_int64_are_strings_and_defaults_left_out(spec: dict) -> None:
    text = spec["info"]["description"]
    assert "int64 and uint64 values are JSON strings" in text
    assert "a field at its default is left out" in text
    schemas = spec["components"]["schemas"]
    assert schemas["IsSubscriberResponse"]["properties"]["expiresAtMs"]["type"] == "string"


# -- live -------------------------------------------------------------------------------------

def sample(route: dict) -> tuple[str, bytes | None]:
    """A request to `route`: its path with a seeded user (user-0, entitled to premium) to read, and
    a user of its own to write (grants, revocations, erasure: the session's database is shared)."""
    writes = route["operationId"] in ("grant", "revoke", "reverify", "eraseUser")
    user = "openapi writer/1" if writes else "user-0"
    path = (route["path"].replace("{userId}", quote(user, safe=""))
            .replace("{entitlement}", "premium").replace("{submissionId}", "no-such-submission"))
    if route["operationId"] == "lookUp":
        path += "?identifier=1000000000000001"
    if route["operationId"] == "eraseUser":
        path += "?dryRun=true"
    body = {
        "submitPurchase": {"userId": "user-0", "store": "STORE_APP_STORE", "receipt": "2000000123456789",
                           "waitMs": 0},
        "grant": {"entitlement": "premium", "until": "2099-01-01T00:00:00Z", "note": "openapi test"},
    }.get(route["operationId"])
    return path, (json.dumps(body).encode() if body is not None else None)


def call(port: int, method: str, path: str, key: str | None, body: bytes | None = None) -> tuple[int, dict, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=body)
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, headers, payload = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, headers, payload = error.code, dict(error.headers), error.read()
    headers = {name.lower(): value for name, value in headers.items()}
    return status, headers, json.loads(payload or b"null")


def check_against_spec(spec: dict, method: str, path: str, status: int, headers: dict, body: object) -> None:
    operation = spec["paths"][path][method.lower()]
    assert str(status) in operation["responses"], f"{method} {path}: {status} is not documented"
    response = operation["responses"][str(status)]
    if "$ref" in response:
        response = spec["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    content_type = headers.get("content-type", "")
    assert content_type in response["content"], f"{method} {path} {status}: {content_type}"
    registry = Registry().with_resource("urn:tollgate:openapi", Resource.from_contents(spec, DRAFT202012))
    schema = response["content"][content_type]["schema"]
    if "$ref" in schema:
        schema = {"$ref": "urn:tollgate:openapi" + schema["$ref"]}
    OAS31Validator(schema, registry=registry).validate(body)


def test_every_route_without_a_key_is_a_401_problem(spec: dict, routes: list[dict], http: DoorsServer) -> None:
    for route in routes:
        path, body = sample(route)
        status, headers, answer = call(http.http_port, route["method"], path, None, body)
        if route["scope"] is None:
            assert status in (200, 503), route
            continue
        assert status == 401, route
        assert headers["content-type"] == "application/problem+json"
        assert headers["www-authenticate"] == 'Bearer realm="tollgate"'
        assert answer["code"] == "ERROR_CODE_UNAUTHENTICATED"
        check_against_spec(spec, route["method"], route["path"], status, headers, answer)


def test_every_admin_route_with_a_read_key_is_a_403_problem(spec: dict, routes: list[dict], http: DoorsServer) -> None:
    admin_routes = [route for route in routes if route["scope"] == "admin"]
    assert len(admin_routes) == 7
    for route in admin_routes:
        path, body = sample(route)
        for caller in ("reader", "both"):
            status, headers, answer = call(http.http_port, route["method"], path, http.keys[caller], body)
            assert status == 403, (route, caller, answer)
            assert answer["code"] == "ERROR_CODE_PERMISSION_DENIED"
            assert answer["detail"].endswith("it needs the admin scope")
            check_against_spec(spec, route["method"], route["path"], status, headers, answer)


def test_every_answer_validates_against_its_schema(spec: dict, routes: list[dict], http: DoorsServer) -> None:
    seen = set()
    for route in routes:
        path, body = sample(route)
        key = http.keys["both"] if route["scope"] in ("read", "submit") else http.keys["ops"]
        status, headers, answer = call(http.http_port, route["method"], path, key, body)
        check_against_spec(spec, route["method"], route["path"], status, headers, answer)
        seen.add((route["operationId"], status))
    # The reads answered for real, not with problems.
    assert ("isSubscriber", 200) in seen and ("getSubscription", 200) in seen and ("health", 200) in seen, seen
    entitled = call(http.http_port, "GET", "/v1/users/user-0/entitlements/premium", http.keys["reader"])[2]
    assert entitled.get("active") is True and isinstance(entitled.get("expiresAtMs"), str)
    assert "willRenew" not in entitled or entitled["willRenew"] is True  # false is left out
