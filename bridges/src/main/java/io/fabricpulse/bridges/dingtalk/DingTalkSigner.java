package io.fabricpulse.bridges.dingtalk;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * DingTalk's 加签 signature
 * (https://open.dingtalk.com/document/robots/customize-robot-security-settings): {@code sign =
 * urlencode(base64(HmacSHA256(key = secret, data = timestamp + "\n" + secret)))}, UTF-8 throughout,
 * the timestamp in milliseconds and within one hour of the server's clock. Both {@code timestamp}
 * and {@code sign} go into the request URL, the sign encoded exactly once.
 */
public final class DingTalkSigner {
  private DingTalkSigner() {}

  /** The URL-encoded {@code sign} parameter for {@code timestampMillis}. */
  public static String sign(long timestampMillis, String secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      byte[] digest =
          mac.doFinal((timestampMillis + "\n" + secret).getBytes(StandardCharsets.UTF_8));
      return URLEncoder.encode(Base64.getEncoder().encodeToString(digest), StandardCharsets.UTF_8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }
}
