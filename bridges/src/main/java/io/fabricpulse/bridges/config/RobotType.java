package io.fabricpulse.bridges.config;

import java.util.Locale;

/** The kinds of group robot a bridge can post to. */
public enum RobotType {
  /** WeChat Work (企业微信) group robot: {@code webhook/send?key=K}. */
  WECOM("https://qyapi.weixin.qq.com/cgi-bin/webhook/send"),
  /** DingTalk (钉钉) custom robot: {@code robot/send?access_token=T}. */
  DINGTALK("https://oapi.dingtalk.com/robot/send");

  private final String defaultUrl;

  RobotType(String defaultUrl) {
    this.defaultUrl = defaultUrl;
  }

  /** The official webhook endpoint, without its secret query parameter. */
  public String defaultUrl() {
    return defaultUrl;
  }

  /** The name in bridge.yaml and on the command line ({@code wecom}, {@code dingtalk}). */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
