package io.fabricpulse.app.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.schemas.http.BearerToken;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, security: the status page listens on 127.0.0.1 unless configured, and with a token
 * configured refuses every request without it (the page, its JSON, any path).
 */
class StatusPageTokenTest {
  private static final String TOKEN = "sentinel-status-token-3f9a";

  @TempDir Path tmp;

  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  private HttpResponse<String> get(StatusPage page, String path, String header, String value)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(page.url()).resolve(path))
            .timeout(Duration.ofSeconds(10));
    if (header != null) {
      request.header(header, value);
    }
    return http.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void withoutConfigurationThePageListensOnLoopbackOnly() throws Exception {
    try (StatusPage page = StatusPage.start(new StatusBoard(), 0)) {
      assertTrue(page.address().getAddress().isLoopbackAddress(), page.address().toString());
      assertEquals(200, get(page, "/api/status", null, null).statusCode());
    }
  }

  @Test
  void withATokenEveryRequestWithoutItIsRefused() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
    BearerToken token = BearerToken.fromFile(file);
    assertFalse(token.toString().contains(TOKEN));
    try (StatusPage page =
        StatusPage.start(new StatusBoard(), InetAddress.getLoopbackAddress(), 0, token)) {
      for (String path : new String[] {"/", "/index.html", "/api/status", "/nope"}) {
        HttpResponse<String> none = get(page, path, null, null);
        assertEquals(401, none.statusCode(), path);
        assertFalse(none.body().contains("\"alerts\""), none.body());
        assertEquals(401, get(page, path, "Authorization", "Bearer wrong").statusCode(), path);
        assertEquals(401, get(page, path, "Authorization", "Basic " + TOKEN).statusCode(), path);
        assertEquals(
            401, get(page, path, "Cookie", BearerToken.COOKIE + "=" + TOKEN + "x").statusCode());
      }
      HttpResponse<String> status = get(page, "/api/status", "Authorization", "Bearer " + TOKEN);
      assertEquals(200, status.statusCode());
      assertFalse(status.body().contains(TOKEN), status.body());

      // A browser: /?token= sets the cookie and sends it on to /, the token out of the address.
      HttpResponse<String> login = get(page, "/?token=" + TOKEN, null, null);
      assertEquals(303, login.statusCode());
      assertEquals("/", login.headers().firstValue("Location").orElseThrow());
      String cookie = login.headers().firstValue("Set-Cookie").orElseThrow();
      assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie);
      assertEquals(401, get(page, "/?token=wrong", null, null).statusCode());
      HttpResponse<String> withCookie =
          get(page, "/", "Cookie", "other=1; " + cookie.substring(0, cookie.indexOf(';')));
      assertEquals(200, withCookie.statusCode());
      assertTrue(withCookie.body().contains("<html"), withCookie.body());
    }
  }

  @Test
  void anEmptyTokenFileIsRefusedWithoutItsContent() throws Exception {
    Path empty = Files.writeString(tmp.resolve("empty"), "\n");
    Exception e =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> BearerToken.fromFile(empty));
    assertTrue(e.getMessage().contains("holds no token"), e.getMessage());
    Path spaced = Files.writeString(tmp.resolve("spaced"), "two words " + TOKEN);
    e =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> BearerToken.fromFile(spaced));
    assertFalse(e.getMessage().contains(TOKEN), e.getMessage());
  }
}
