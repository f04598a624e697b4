package io.fabricpulse.bridges.dingtalk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.bridges.config.Person;
import io.fabricpulse.bridges.delivery.Robot;
import io.fabricpulse.bridges.delivery.SendResult;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.bridges.delivery.WebhookClient.Reply;
import io.fabricpulse.bridges.delivery.WebhookClient.WebhookException;
import io.fabricpulse.bridges.render.Message;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A DingTalk (钉钉) custom robot: {@code POST .../robot/send?access_token=T} with a {@code markdown}
 * body (自定义机器人发送群消息, https://open.dingtalk.com/document/orgapp/custom-robots-send-group-messages
 * and https://open.dingtalk.com/document/robots/custom-robot-access):
 *
 * <ul>
 *   <li>with the signature setting, {@code &timestamp=<ms>&sign=<sign>} signed afresh for every
 *       request with the injected clock ({@link DingTalkSigner});
 *   <li>with the keyword setting, the keyword must be in the message, so it is added to the title
 *       and the first line when the rendered text lacks it;
 *   <li>mentions are {@code at.atUserIds} / {@code at.atMobiles}, and the {@code @mobile} must also
 *       be in the text for it to notify, so the mentions end the text;
 *   <li>{@code msgUuid} makes a resend after a timeout a no-op on the server;
 *   <li>20 messages per minute; above that the robot is locked for 10 minutes (errcode 130101, the
 *       documented 410100 too); a body over 20,000 bytes gets 460101 (older servers: 101002).
 * </ul>
 */
public final class DingTalkRobot implements Robot {
  public static final int BODY_MAX_BYTES = 20_000;
  public static final int ERR_SEND_TOO_FAST = 130101;
  public static final int ERR_RATE_LIMITED = 410100;
  public static final int ERR_MESSAGE_TOO_LONG = 460101;
  public static final int ERR_MESSAGE_TOO_LONG_OLD = 101002;
  public static final Duration LOCKOUT = Duration.ofMinutes(10);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String name;
  private final String url;
  private final String token;
  private final String secret;
  private final String keyword;
  private final Clock clock;
  private final WebhookClient client;

  /**
   * @param secret the signing secret ({@code SEC...}), or null without the signature setting
   * @param keyword the custom keyword, or null
   * @param clock the time the signature is computed for
   */
  public DingTalkRobot(
      String name,
      String url,
      String token,
      String secret,
      String keyword,
      Clock clock,
      WebhookClient client) {
    this.name = name;
    this.url = url;
    this.token = Objects.requireNonNull(token, "token");
    this.secret = secret;
    this.keyword = keyword;
    this.clock = clock;
    this.client = client;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean fits(Message message) {
    return body(message, "0123456789abcdef0123456789abcdef").length <= BODY_MAX_BYTES;
  }

  @Override
  public byte[] body(Message message, String idempotencyKey) {
    List<String> lines = new ArrayList<>(message.lines());
    String title = message.title();
    if (keyword != null && lines.stream().noneMatch(l -> l.contains(keyword))) {
      title = keyword + " " + title;
      String first = lines.get(0);
      lines.set(
          0,
          first.startsWith("### ")
              ? "### " + keyword + " " + first.substring(4)
              : keyword + " " + first);
    }
    List<String> userIds = new ArrayList<>();
    List<String> mobiles = new ArrayList<>();
    for (Person p : message.mentions()) {
      if (p.dingtalkUserId() != null) {
        userIds.add(p.dingtalkUserId());
      }
      if (p.dingtalkAtMobile() != null) {
        mobiles.add(p.dingtalkAtMobile());
      }
    }
    StringBuilder text = new StringBuilder(String.join("\n\n", lines));
    if (!userIds.isEmpty() || !mobiles.isEmpty()) {
      List<String> ats = new ArrayList<>();
      mobiles.forEach(m -> ats.add("@" + m));
      userIds.forEach(u -> ats.add("@" + u));
      text.append("\n\n").append(String.join(" ", ats));
    }
    Map<String, Object> markdown = new LinkedHashMap<>();
    markdown.put("title", title);
    markdown.put("text", text.toString());
    Map<String, Object> at = new LinkedHashMap<>();
    at.put("atMobiles", mobiles);
    at.put("atUserIds", userIds);
    at.put("isAtAll", false);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("msgtype", "markdown");
    body.put("markdown", markdown);
    body.put("at", at);
    body.put("msgUuid", idempotencyKey);
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public SendResult send(Message message, String idempotencyKey) {
    Reply reply;
    try {
      reply = client.post(signedUri(), body(message, idempotencyKey), secrets());
    } catch (WebhookException e) {
      return new SendResult.Failed(e.getMessage());
    }
    return switch (reply.errcode()) {
      case 0 -> new SendResult.Accepted();
      case ERR_SEND_TOO_FAST, ERR_RATE_LIMITED ->
          new SendResult.Throttled(reply.errcode(), reply.errmsg(), LOCKOUT);
      case ERR_MESSAGE_TOO_LONG, ERR_MESSAGE_TOO_LONG_OLD ->
          new SendResult.TooLarge(reply.errcode(), reply.errmsg());
      default -> new SendResult.Failed("errcode " + reply.errcode() + ": " + reply.errmsg());
    };
  }

  /** The request URL: token, and with a secret a timestamp from the clock and its signature. */
  URI signedUri() {
    StringBuilder s = new StringBuilder(url);
    s.append(url.contains("?") ? '&' : '?');
    s.append("access_token=").append(URLEncoder.encode(token, StandardCharsets.UTF_8));
    if (secret != null) {
      long now = clock.millis();
      s.append("&timestamp=").append(now).append("&sign=").append(DingTalkSigner.sign(now, secret));
    }
    return URI.create(s.toString());
  }

  @Override
  public String maskedEndpoint() {
    String masked = url + (url.contains("?") ? "&" : "?") + "access_token=***";
    return secret == null ? masked : masked + "&timestamp=<ms>&sign=***";
  }

  private List<String> secrets() {
    return secret == null ? List.of(token) : List.of(token, secret);
  }
}
