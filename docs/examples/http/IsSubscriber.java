// IsSubscriber over the HTTP/JSON API with java.net.http (Java 11+; docs/http-api.md).
// Usage: TOLLGATE_HTTP=http://127.0.0.1:7706 TOLLGATE_KEY=tgk_... java IsSubscriber.java USER_ID ENTITLEMENT
// (the single-file launch; a JSON library such as Jackson would read the body in real code).
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

public class IsSubscriber {
  /** One path segment, percent-encoded (URLEncoder writes a space as +, which a path keeps as +). */
  static String segment(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }

  public static void main(String[] args) throws Exception {
    String base = System.getenv().getOrDefault("TOLLGATE_HTTP", "http://127.0.0.1:7706");
    HttpRequest request = HttpRequest.newBuilder()
        .uri(URI.create(base + "/v1/users/" + segment(args[0]) + "/entitlements/" + segment(args[1])))
        .header("Authorization", "Bearer " + System.getenv("TOLLGATE_KEY"))
        .timeout(Duration.ofSeconds(5))
        .GET()
        .build();
    HttpResponse<String> response =
        HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      // An RFC 9457 problem document (application/problem+json).
      System.err.println(response.statusCode() + " " + response.body());
      System.exit(1);
    }
    // proto3 JSON: "active" is left out when false; "expiresAtMs" is a string.
    System.out.println(response.body());
  }
}
