package io.fabricpulse.bridges.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * A WeCom group robot (https://developer.work.weixin.qq.com/document/path/91770): key in the query,
 * lower-case msgtype, markdown content at most 4096 bytes and text at most 2048 (UTF-8), 20
 * messages a minute answered with 45009 "api freq out of limit" above that, 93000 for an unknown
 * key, 40008 for a bad msgtype, 40058 for oversize content, all with HTTP 200.
 */
public final class FakeWeComServer extends FakeRobotServer {
  public static final String PATH = "/cgi-bin/webhook/send";
  private final String key;

  public FakeWeComServer(Clock clock, String key) throws IOException {
    this(clock, key, 0);
  }

  public FakeWeComServer(Clock clock, String key, int port) throws IOException {
    super(PATH, clock, 20, Duration.ofMinutes(1), port);
    this.key = key;
  }

  public String url() {
    return url(PATH);
  }

  @Override
  protected int rateErrcode() {
    return 45009;
  }

  @Override
  protected String rateErrmsg() {
    return "api freq out of limit";
  }

  @Override
  protected int check(Map<String, String> query, JsonNode body, int bytes, String[] errmsg) {
    if (!key.equals(decode(query.getOrDefault("key", "")))) {
      errmsg[0] = "invalid webhook url, hint: [1], from ip: 127.0.0.1";
      return 93000;
    }
    String type = body.path("msgtype").asText("");
    if (!type.equals("markdown") && !type.equals("text")) {
      errmsg[0] = "invalid message type";
      return 40008;
    }
    String content = body.path(type).path("content").asText("");
    if (content.isEmpty()) {
      errmsg[0] = "empty content";
      return 44004;
    }
    int max = type.equals("markdown") ? 4096 : 2048;
    if (content.getBytes(StandardCharsets.UTF_8).length > max) {
      errmsg[0] = type + ".content exceed max length " + max + ". invalid Request Parameter";
      return 40058;
    }
    return 0;
  }
}
