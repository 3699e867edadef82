// IsSubscriber over the HTTP/JSON API with Node's built-in fetch (Node 18+; docs/http-api.md).
// Usage: TOLLGATE_HTTP=http://127.0.0.1:7706 TOLLGATE_KEY=tgk_... node is-subscriber.mjs USER_ID ENTITLEMENT
const [userId, entitlement] = process.argv.slice(2);
const base = process.env.TOLLGATE_HTTP ?? "http://127.0.0.1:7706";

const response = await fetch(
  `${base}/v1/users/${encodeURIComponent(userId)}/entitlements/${encodeURIComponent(entitlement)}`,
  { headers: { authorization: `Bearer ${process.env.TOLLGATE_KEY}` } },
);
const body = await response.json();
if (!response.ok) {
  // An RFC 9457 problem document: type, title, status, detail, code.
  console.error(`${body.status} ${body.code ?? body.type}: ${body.detail}`);
  process.exit(1);
}
// proto3 JSON: fields at their default are left out, int64 values are strings.
const active = body.active ?? false;
const expiresAtMs = BigInt(body.expiresAtMs ?? "0");
console.error(`active=${active} expiresAt=${expiresAtMs > 0n ? new Date(Number(expiresAtMs)).toISOString() : "-"}`);
console.log(JSON.stringify(body));
