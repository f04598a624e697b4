package io.fabricpulse.app.interactive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code query --api}: one GET against a {@code streams} instance's query API. */
public final class ApiClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The API answered: its HTTP status and JSON body. */
  public record Reply(int status, Map<String, Object> body) {}

  /** The API could not be reached, or did not answer with JSON. */
  public static final class Unreachable extends Exception {
    private static final long serialVersionUID = 1L;

    Unreachable(String message) {
      super(message);
    }
  }

  private final URI base;
  private final char[] token;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * @param base e.g. {@code http://127.0.0.1:8090} (a trailing slash is fine)
   * @param token empty: none sent
   */
  public ApiClient(URI base, char[] token) {
    String text = base.toString();
    this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.token = token.clone();
  }

  /** GET {@code path} (e.g. {@code /v1/top}) with the non-null {@code params}. */
  public Reply get(String path, Map<String, String> params) throws Unreachable {
    StringBuilder uri = new StringBuilder(base.toString()).append(path);
    char sep = '?';
    for (Map.Entry<String, String> p : params.entrySet()) {
      if (p.getValue() != null) {
        uri.append(sep)
            .append(URLEncoder.encode(p.getKey(), StandardCharsets.UTF_8))
            .append('=')
            .append(URLEncoder.encode(p.getValue(), StandardCharsets.UTF_8));
        sep = '&';
      }
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(uri.toString())).timeout(Duration.ofSeconds(60)).GET();
    if (token.length > 0) {
      request.header("Authorization", "Bearer " + new String(token));
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new Unreachable(base + ": the query API did not answer (" + reason(e) + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unreachable(base + ": interrupted");
    }
    try {
      return new Reply(
          response.statusCode(),
          JSON.readValue(response.body(), new TypeReference<LinkedHashMap<String, Object>>() {}));
    } catch (JsonProcessingException e) {
      throw new Unreachable(
          base
              + ": HTTP "
              + response.statusCode()
              + " without a JSON answer: is it the query API?");
    }
  }

  private static String reason(IOException e) {
    String message = e.getMessage();
    return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
  }

  /** The body as one JSON line. */
  public static String json(Map<String, Object> body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write an answer", e);
    }
  }
}
