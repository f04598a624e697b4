package io.fabricpulse.schemas.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;

/**
 * The token an HTTP endpoint of fabricpulse (the status page, the query API) requires when one is
 * configured: read from a file (never the command line), compared in constant time, never printed
 * ({@link #toString()} shows {@code ***}). A request carries it as {@code Authorization: Bearer
 * TOKEN} (RFC 6750, section 2.1), or, for a browser, as the cookie {@value #COOKIE} that a visit to
 * {@code /?token=TOKEN} sets.
 */
public final class BearerToken {
  public static final String HEADER = "Authorization";
  public static final String COOKIE = "fabricpulse_token";
  private static final String SCHEME = "Bearer ";

  private final byte[] token;

  private BearerToken(byte[] token) {
    this.token = token;
  }

  /**
   * The token in {@code file} (surrounding whitespace removed).
   *
   * @throws IOException when the file cannot be read or holds no token (the message names the file,
   *     never its content)
   */
  public static BearerToken fromFile(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      throw new IOException(file + " holds no token");
    }
    if (text.chars().anyMatch(c -> c <= ' ' || c == ';' || c == ',' || c > '~')) {
      throw new IOException(
          file + ": the token must be printable ASCII without spaces, ';' or ','");
    }
    return new BearerToken(text.getBytes(StandardCharsets.US_ASCII));
  }

  /** Whether an {@code Authorization} header value carries this token. */
  public boolean permitsHeader(String authorization) {
    return authorization != null
        && authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())
        && matches(authorization.substring(SCHEME.length()).strip());
  }

  /** Whether one of the {@code Cookie} header values carries this token as {@value #COOKIE}. */
  public boolean permitsCookies(List<String> cookieHeaders) {
    if (cookieHeaders == null) {
      return false;
    }
    for (String header : cookieHeaders) {
      for (String pair : header.split(";")) {
        int eq = pair.indexOf('=');
        if (eq > 0 && pair.substring(0, eq).strip().equals(COOKIE)) {
          if (matches(pair.substring(eq + 1).strip())) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** Whether {@code candidate} is the token, in time independent of where they differ. */
  public boolean matches(String candidate) {
    return candidate != null
        && MessageDigest.isEqual(token, candidate.getBytes(StandardCharsets.US_ASCII));
  }

  /** The {@code Set-Cookie} value that makes a browser send the token (HttpOnly, same site). */
  public String cookie() {
    return COOKIE
        + "="
        + new String(token, StandardCharsets.US_ASCII)
        + "; Path=/; HttpOnly; SameSite=Strict";
  }

  @Override
  public String toString() {
    return "BearerToken[***]";
  }
}
