package io.fabricpulse.bridges.dingtalk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.bridges.config.Person;
import io.fabricpulse.bridges.delivery.SendResult;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.bridges.render.Message;
import io.fabricpulse.bridges.testing.FakeDingTalkServer;
import io.fabricpulse.bridges.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Bodies byte for byte as the official markdown example shows them
 * (https://open.dingtalk.com/document/robots/custom-robot-access), and the answers of a robot with
 * the signature and keyword settings.
 */
class DingTalkRobotTest {
  private static final Person ALICE = new Person("alice", "alice.w", "u123", "13800001111");
  private static final String SECRET =
      "SECb90923e19e58b466481e9e7b7a5b4f108a4531abde590ad3967fb29f0eae5c68";
  private static final Message MESSAGE =
      new Message(
          "[CRITICAL] PAUSE_STORM firing",
          List.of("### [CRITICAL] PAUSE_STORM firing", "**Subject**: gpu007 ens9f0np0 prio 3"),
          Set.of(ALICE),
          1);

  @Test
  void markdownWithKeywordMentionsAndMsgUuid() {
    DingTalkRobot robot =
        new DingTalkRobot(
            "r",
            "http://h/robot/send",
            "T",
            null,
            "fabricpulse",
            Clockless.CLOCK,
            new WebhookClient());
    assertEquals(
        "{\"msgtype\":\"markdown\",\"markdown\":{\"title\":\"fabricpulse [CRITICAL] PAUSE_STORM firing\","
            + "\"text\":\"### fabricpulse [CRITICAL] PAUSE_STORM firing\\n\\n**Subject**: gpu007 ens9f0np0 prio 3"
            + "\\n\\n@13800001111 @u123\"},"
            + "\"at\":{\"atMobiles\":[\"13800001111\"],\"atUserIds\":[\"u123\"],\"isAtAll\":false},"
            + "\"msgUuid\":\"abc\"}",
        new String(robot.body(MESSAGE, "abc"), StandardCharsets.UTF_8));
  }

  @Test
  void theUrlCarriesTimestampAndSignFromTheClock() {
    ManualClock clock = new ManualClock(Instant.ofEpochMilli(1582163555000L));
    DingTalkRobot robot =
        new DingTalkRobot(
            "r",
            "https://oapi.dingtalk.com/robot/send",
            "TOKEN",
            SECRET,
            null,
            clock,
            new WebhookClient());
    assertEquals(
        "https://oapi.dingtalk.com/robot/send?access_token=TOKEN&timestamp=1582163555000"
            + "&sign=BQKsG%2BQOCl%2BbYJOLc6pxDHxjVquzlZPWgvRzeN2J5zY%3D",
        robot.signedUri().toString());
    assertEquals(
        "https://oapi.dingtalk.com/robot/send?access_token=***&timestamp=<ms>&sign=***",
        robot.maskedEndpoint());
  }

  @Test
  void theRobotAcceptsASignedKeywordedMessageAndRefusesWhatTheDocsSay() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-12-01T03:00:00Z"));
    try (FakeDingTalkServer server =
        new FakeDingTalkServer(clock, "TOKEN", SECRET, "fabricpulse")) {
      DingTalkRobot robot =
          new DingTalkRobot(
              "r", server.url(), "TOKEN", SECRET, "fabricpulse", clock, new WebhookClient());
      assertInstanceOf(SendResult.Accepted.class, robot.send(MESSAGE, "a"));

      DingTalkRobot noKeyword =
          new DingTalkRobot("r", server.url(), "TOKEN", SECRET, null, clock, new WebhookClient());
      SendResult.Failed f = assertInstanceOf(SendResult.Failed.class, noKeyword.send(MESSAGE, "b"));
      assertEquals("errcode 310000: keywords not in content", f.reason());

      DingTalkRobot wrongSecret =
          new DingTalkRobot(
              "r", server.url(), "TOKEN", "SECwrong", "fabricpulse", clock, new WebhookClient());
      f = assertInstanceOf(SendResult.Failed.class, wrongSecret.send(MESSAGE, "c"));
      assertEquals("errcode 310000: sign not match", f.reason());

      ManualClock skewed = new ManualClock(clock.instant().minus(Duration.ofMinutes(61)));
      DingTalkRobot late =
          new DingTalkRobot(
              "r", server.url(), "TOKEN", SECRET, "fabricpulse", skewed, new WebhookClient());
      f = assertInstanceOf(SendResult.Failed.class, late.send(MESSAGE, "d"));
      assertEquals("errcode 310000: invalid timestamp", f.reason());

      Message big = new Message("t", List.of("告".repeat(6700)), Set.of(), 1);
      assertFalse(robot.fits(big));
      SendResult.TooLarge tooLarge =
          assertInstanceOf(SendResult.TooLarge.class, robot.send(big, "e"));
      assertEquals(460101, tooLarge.errcode());

      server.othersSent(20);
      SendResult.Throttled t =
          assertInstanceOf(SendResult.Throttled.class, robot.send(MESSAGE, "f"));
      assertEquals(130101, t.errcode());
      assertEquals(Duration.ofMinutes(10), t.lockout());
      assertTrue(server.requests().stream().allMatch(r -> !r.query().containsKey("secret")));
    }
  }

  /** A clock for bodies, which do not depend on time. */
  private static final class Clockless {
    static final ManualClock CLOCK = new ManualClock(Instant.EPOCH);
  }
}
