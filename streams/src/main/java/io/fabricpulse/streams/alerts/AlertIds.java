package io.fabricpulse.streams.alerts;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Deterministic alert ids: the same rule, subject and start time always give the same id. */
public final class AlertIds {

  private AlertIds() {}

  /** First 128 bits of SHA-256 over {@code ruleId \n subjectKey \n startedAtMillis}, hex. */
  public static String of(String ruleId, String subjectKey, long startedAt) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] digest =
          sha.digest(
              (ruleId + "\n" + subjectKey + "\n" + startedAt).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every JVM", e);
    }
  }
}
