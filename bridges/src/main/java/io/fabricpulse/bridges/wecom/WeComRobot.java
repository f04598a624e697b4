package io.fabricpulse.bridges.wecom;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.bridges.config.Person;
import io.fabricpulse.bridges.delivery.Robot;
import io.fabricpulse.bridges.delivery.SendResult;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.bridges.delivery.WebhookClient.Reply;
import io.fabricpulse.bridges.delivery.WebhookClient.WebhookException;
import io.fabricpulse.bridges.render.Message;
import io.fabricpulse.bridges.render.Utf8;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A WeChat Work (企业微信) group robot: {@code POST .../cgi-bin/webhook/send?key=K} with a {@code
 * markdown} (default) or {@code text} body, as documented in 群机器人配置说明
 * (https://developer.work.weixin.qq.com/document/path/91770):
 *
 * <ul>
 *   <li>markdown content at most 4096 bytes, text content at most 2048 bytes, UTF-8;
 *   <li>{@code mentioned_list} (userids) and {@code mentioned_mobile_list} (mobile numbers) work in
 *       {@code text} only; in markdown a mention is {@code <@userid>} in the content, so a person
 *       known only by a mobile number is mentioned in text messages only;
 *   <li>at most 20 messages per minute per robot.
 * </ul>
 *
 * <p>Errors come back as HTTP 200 with a non-zero errcode (global error codes:
 * https://developer.work.weixin.qq.com/document/path/90313): 45009 is the frequency limit, which
 * lifts after the limit's window (one minute); 40058 (invalid parameter, the answer seen for
 * oversize markdown) and 45002 (content too large) mean the message must be smaller.
 */
public final class WeComRobot implements Robot {
  public static final int MARKDOWN_MAX_BYTES = 4096;
  public static final int TEXT_MAX_BYTES = 2048;
  public static final int ERR_RATE_LIMITED = 45009;
  public static final int ERR_INVALID_PARAMETER = 40058;
  public static final int ERR_CONTENT_TOO_LARGE = 45002;

  /** 45009 lasts as long as the limit's window: one minute for the per-minute budget. */
  public static final Duration RATE_LIMIT_LOCKOUT = Duration.ofMinutes(1);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String name;
  private final URI endpoint;
  private final String key;
  private final boolean text;
  private final WebhookClient client;

  /**
   * @param url the send endpoint without the key
   * @param text post {@code text} messages (mentions in {@code mentioned_list}) instead of markdown
   */
  public WeComRobot(String name, String url, String key, boolean text, WebhookClient client) {
    this.name = name;
    this.key = Objects.requireNonNull(key, "key");
    this.endpoint =
        URI.create(
            url
                + (url.contains("?") ? "&" : "?")
                + "key="
                + URLEncoder.encode(key, StandardCharsets.UTF_8));
    this.text = text;
    this.client = client;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean fits(Message message) {
    return Utf8.length(content(message)) <= (text ? TEXT_MAX_BYTES : MARKDOWN_MAX_BYTES);
  }

  /** The {@code content} field: the lines, then the {@code <@userid>} mentions in markdown. */
  String content(Message message) {
    if (text) {
      return String.join("\n", message.lines().stream().map(WeComRobot::plain).toList());
    }
    StringBuilder s = new StringBuilder(String.join("\n", message.lines()));
    List<String> ids = userIds(message);
    if (!ids.isEmpty()) {
      s.append('\n');
      s.append(String.join(" ", ids.stream().map(id -> "<@" + id + ">").toList()));
    }
    return s.toString();
  }

  @Override
  public byte[] body(Message message, String idempotencyKey) {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("content", content(message));
    if (text && !userIds(message).isEmpty()) {
      inner.put("mentioned_list", userIds(message));
    }
    if (text && !mobiles(message).isEmpty()) {
      inner.put("mentioned_mobile_list", mobiles(message));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    String type = text ? "text" : "markdown";
    body.put("msgtype", type);
    body.put(type, inner);
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
      reply = client.post(endpoint, body(message, idempotencyKey), List.of(key));
    } catch (WebhookException e) {
      return new SendResult.Failed(e.getMessage());
    }
    return switch (reply.errcode()) {
      case 0 -> new SendResult.Accepted();
      case ERR_RATE_LIMITED ->
          new SendResult.Throttled(reply.errcode(), reply.errmsg(), RATE_LIMIT_LOCKOUT);
      case ERR_INVALID_PARAMETER, ERR_CONTENT_TOO_LARGE ->
          new SendResult.TooLarge(reply.errcode(), reply.errmsg());
      default -> new SendResult.Failed("errcode " + reply.errcode() + ": " + reply.errmsg());
    };
  }

  @Override
  public String maskedEndpoint() {
    return WebhookClient.mask(endpoint.toString(), List.of(key));
  }

  private static List<String> userIds(Message message) {
    return message.mentions().stream().map(Person::wecomUserId).filter(Objects::nonNull).toList();
  }

  /** Mobile numbers of the mentioned people WeCom does not know by userid (one mention each). */
  private static List<String> mobiles(Message message) {
    return message.mentions().stream()
        .filter(p -> p.wecomUserId() == null)
        .map(Person::wecomMobile)
        .filter(Objects::nonNull)
        .toList();
  }

  /** A markdown line as plain text: headings and bold marks dropped. */
  private static String plain(String line) {
    return line.replaceFirst("^#+ ", "").replace("**", "");
  }
}
