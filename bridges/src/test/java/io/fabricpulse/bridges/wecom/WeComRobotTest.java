package io.fabricpulse.bridges.wecom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.bridges.config.Person;
import io.fabricpulse.bridges.delivery.SendResult;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.bridges.render.Message;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import io.fabricpulse.bridges.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Bodies byte for byte as https://developer.work.weixin.qq.com/document/path/91770 shows them. */
class WeComRobotTest {
  private static final Person ALICE = new Person("alice", "alice.w", "u123", "13800001111");
  private static final Message MESSAGE =
      new Message(
          "【严重】PAUSE_STORM 告警",
          List.of("### 【严重】PAUSE_STORM 告警", "**对象**：gpu007 ens9f0np0 优先级 3"),
          Set.of(ALICE),
          1);

  @Test
  void markdownMentionsAreUserIdTagsInTheContent() {
    WeComRobot robot = new WeComRobot("r", "http://127.0.0.1:1/x", "K", false, new WebhookClient());
    assertEquals(
        "{\"msgtype\":\"markdown\",\"markdown\":{\"content\":\"### 【严重】PAUSE_STORM 告警\\n"
            + "**对象**：gpu007 ens9f0np0 优先级 3\\n<@alice.w>\"}}",
        new String(robot.body(MESSAGE, "id"), StandardCharsets.UTF_8));
  }

  @Test
  void textMessagesCarryMentionedList() {
    WeComRobot robot = new WeComRobot("r", "http://127.0.0.1:1/x", "K", true, new WebhookClient());
    assertEquals(
        "{\"msgtype\":\"text\",\"text\":{\"content\":\"【严重】PAUSE_STORM 告警\\n"
            + "对象：gpu007 ens9f0np0 优先级 3\",\"mentioned_list\":[\"alice.w\"]}}",
        new String(robot.body(MESSAGE, "id"), StandardCharsets.UTF_8));
  }

  @Test
  void textMessagesMentionPeopleWithoutAUserIdByMobile() {
    // https://developer.work.weixin.qq.com/document/path/91770: text.mentioned_mobile_list
    Person bob = new Person("bob", null, null, null, "13900002222");
    Message message =
        new Message(
            "【严重】PAUSE_STORM 告警",
            List.of("### 【严重】PAUSE_STORM 告警"),
            new java.util.LinkedHashSet<>(List.of(ALICE, bob)),
            1);
    WeComRobot text = new WeComRobot("r", "http://127.0.0.1:1/x", "K", true, new WebhookClient());
    assertEquals(
        "{\"msgtype\":\"text\",\"text\":{\"content\":\"【严重】PAUSE_STORM 告警\","
            + "\"mentioned_list\":[\"alice.w\"],\"mentioned_mobile_list\":[\"13900002222\"]}}",
        new String(text.body(message, "id"), StandardCharsets.UTF_8));
    // markdown has no mobile mentions: only the userid tag
    WeComRobot markdown =
        new WeComRobot("r", "http://127.0.0.1:1/x", "K", false, new WebhookClient());
    assertEquals(
        "{\"msgtype\":\"markdown\",\"markdown\":{\"content\":\"### 【严重】PAUSE_STORM 告警\\n"
            + "<@alice.w>\"}}",
        new String(markdown.body(message, "id"), StandardCharsets.UTF_8));
  }

  @Test
  void theLimitIsContentBytesNotCharacters() {
    WeComRobot markdown = new WeComRobot("r", "http://h/x", "K", false, new WebhookClient());
    // 1365 Chinese characters are 4095 bytes: fits; one more character does not
    String fits = "告".repeat(1365);
    assertTrue(markdown.fits(new Message("t", List.of(fits), Set.of(), 1)));
    assertFalse(markdown.fits(new Message("t", List.of(fits + "警"), Set.of(), 1)));
    WeComRobot text = new WeComRobot("r", "http://h/x", "K", true, new WebhookClient());
    assertTrue(text.fits(new Message("t", List.of("告".repeat(682)), Set.of(), 1)));
    assertFalse(text.fits(new Message("t", List.of("告".repeat(683)), Set.of(), 1)));
  }

  @Test
  void errcodesWithHttp200AreErrors() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-12-01T03:00:00Z"));
    try (FakeWeComServer server = new FakeWeComServer(clock, "right-key")) {
      WeComRobot wrong = new WeComRobot("r", server.url(), "wrong-key", false, new WebhookClient());
      SendResult r = wrong.send(MESSAGE, "id");
      SendResult.Failed failed = assertInstanceOf(SendResult.Failed.class, r);
      assertTrue(failed.reason().startsWith("errcode 93000"), failed.reason());
      assertFalse(failed.reason().contains("wrong-key"));

      WeComRobot robot = new WeComRobot("r", server.url(), "right-key", false, new WebhookClient());
      assertInstanceOf(SendResult.Accepted.class, robot.send(MESSAGE, "id"));
      Message big = new Message("t", List.of("告".repeat(1400)), Set.of(), 1);
      SendResult.TooLarge tooLarge =
          assertInstanceOf(SendResult.TooLarge.class, robot.send(big, "id"));
      assertEquals(40058, tooLarge.errcode());

      server.othersSent(20);
      SendResult.Throttled t =
          assertInstanceOf(SendResult.Throttled.class, robot.send(MESSAGE, "id"));
      assertEquals(45009, t.errcode());
      assertEquals(WeComRobot.RATE_LIMIT_LOCKOUT, t.lockout());
      assertEquals(
          "http://127.0.0.1:"
              + server.url().split(":")[2].split("/")[0]
              + "/cgi-bin/webhook/send?key=***",
          robot.maskedEndpoint());
    }
  }

  @Test
  void anOutageIsARetryableFailure() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-12-01T03:00:00Z"));
    try (FakeWeComServer server = new FakeWeComServer(clock, "k")) {
      server.down(true);
      WeComRobot robot = new WeComRobot("r", server.url(), "k", false, new WebhookClient());
      SendResult.Failed f = assertInstanceOf(SendResult.Failed.class, robot.send(MESSAGE, "id"));
      assertEquals("HTTP 503", f.reason());
    }
  }
}
