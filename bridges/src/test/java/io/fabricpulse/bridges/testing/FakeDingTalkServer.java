package io.fabricpulse.bridges.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A DingTalk custom robot (https://open.dingtalk.com/document/robots/custom-robot-access and
 * .../customize-robot-security-settings): access_token in the query; with a secret, a timestamp
 * within one hour of the server clock and the HmacSHA256 sign, encoded once (310000 "sign not
 * match" / "invalid timestamp" otherwise); with a keyword, the keyword in the message (310000
 * "keywords not in content"); a body of at most 20,000 bytes (460101); 20 messages a minute, above
 * that 130101 and a 10-minute lockout; HTTP 200 for every answer. The signature is computed here
 * independently of the bridge's signer.
 */
public final class FakeDingTalkServer extends FakeRobotServer {
  public static final String PATH = "/robot/send";
  private final String token;
  private final String secret;
  private final String keyword;

  public FakeDingTalkServer(Clock clock, String token, String secret, String keyword)
      throws IOException {
    this(clock, token, secret, keyword, 0);
  }

  /** As above, listening on 127.0.0.1:{@code port} (0: a free one). */
  public FakeDingTalkServer(Clock clock, String token, String secret, String keyword, int port)
      throws IOException {
    super(PATH, clock, 20, Duration.ofMinutes(10), port);
    this.token = token;
    this.secret = secret;
    this.keyword = keyword;
  }

  public String url() {
    return url(PATH);
  }

  @Override
  protected int rateErrcode() {
    return 130101;
  }

  @Override
  protected String rateErrmsg() {
    return "send too fast, exceed 20 times per minute";
  }

  @Override
  protected int check(Map<String, String> query, JsonNode body, int bytes, String[] errmsg) {
    if (!token.equals(decode(query.getOrDefault("access_token", "")))) {
      errmsg[0] = "token is not exist";
      return 300001;
    }
    if (secret != null) {
      String ts = query.get("timestamp");
      String sign = query.get("sign");
      if (ts == null || sign == null) {
        errmsg[0] = "sign not match";
        return 310000;
      }
      long t;
      try {
        t = Long.parseLong(ts);
      } catch (NumberFormatException e) {
        errmsg[0] = "invalid timestamp";
        return 310000;
      }
      if (Math.abs(clock.millis() - t) > Duration.ofHours(1).toMillis()) {
        errmsg[0] = "invalid timestamp";
        return 310000;
      }
      if (!expectedSign(t).equals(decode(sign))) {
        errmsg[0] = "sign not match";
        return 310000;
      }
    }
    if (bytes > 20_000) {
      errmsg[0] = "message too long, exceed 20000 bytes";
      return 460101;
    }
    String type = body.path("msgtype").asText("");
    if (!type.equals("markdown") && !type.equals("text")) {
      errmsg[0] = "不支持的消息类型";
      return 400105;
    }
    String text =
        type.equals("markdown")
            ? body.path("markdown").path("title").asText("")
                + body.path("markdown").path("text").asText("")
            : body.path("text").path("content").asText("");
    if (keyword != null && !text.contains(keyword)) {
      errmsg[0] = "keywords not in content";
      return 310000;
    }
    return 0;
  }

  private String expectedSign(long timestamp) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return Base64.getEncoder()
          .encodeToString(
              mac.doFinal((timestamp + "\n" + secret).getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
