package io.fabricpulse.bridges.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * POSTs a JSON body to a robot's webhook and reads the {@code {"errcode":N,"errmsg":"..."}} reply.
 * Both robots answer errors with HTTP 200 and a non-zero errcode, so the status alone says nothing
 * about delivery. Every text this class returns has the secrets masked.
 */
public final class WebhookClient {
  static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;

  public WebhookClient() {
    this(HttpClient.newBuilder().connectTimeout(TIMEOUT).build());
  }

  public WebhookClient(HttpClient http) {
    this.http = http;
  }

  /** A parsed reply: errcode and errmsg. */
  public record Reply(int errcode, String errmsg) {}

  /**
   * POSTs {@code body} and returns the robot's errcode and errmsg.
   *
   * @param secrets the values to mask in any error text
   * @throws WebhookException for network errors, non-200 statuses and bodies that are not the
   *     robots' JSON (its message has the secrets masked)
   */
  public Reply post(URI uri, byte[] body, List<String> secrets) throws WebhookException {
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json; charset=utf-8")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      String what = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new WebhookException(mask("network error: " + what, secrets));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WebhookException("interrupted");
    }
    if (response.statusCode() != 200) {
      throw new WebhookException("HTTP " + response.statusCode());
    }
    try {
      JsonNode reply = JSON.readTree(response.body());
      if (reply == null || !reply.has("errcode") || !reply.get("errcode").canConvertToInt()) {
        throw new WebhookException(
            mask("HTTP 200 without an errcode: " + abbreviate(response.body()), secrets));
      }
      return new Reply(
          reply.get("errcode").asInt(), mask(reply.path("errmsg").asText(""), secrets));
    } catch (IOException e) {
      throw new WebhookException(
          mask("HTTP 200 with a body that is not JSON: " + abbreviate(response.body()), secrets));
    }
  }

  /** {@code text} with every occurrence of every secret replaced by {@code ***}. */
  public static String mask(String text, List<String> secrets) {
    String out = text;
    for (String s : secrets) {
      if (s != null && !s.isEmpty()) {
        out = out.replace(s, "***");
        String encoded = java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
        out = out.replace(encoded, "***");
      }
    }
    return out;
  }

  /** A request that got no usable reply; the message is safe to log. */
  public static final class WebhookException extends Exception {
    public WebhookException(String maskedReason) {
      super(maskedReason);
    }
  }

  private static String abbreviate(String body) {
    String oneLine = body.replace('\n', ' ');
    return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
  }
}
