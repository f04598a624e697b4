package io.fabricpulse.bridges.config;

/**
 * One person who can be @-mentioned, with an identity per robot kind. Any identity may be null when
 * the person has none there.
 *
 * @param wecomUserId the WeCom userid ({@code mentioned_list}, {@code <@userid>})
 * @param dingtalkUserId the DingTalk userId ({@code at.atUserIds})
 * @param dingtalkMobile the mobile number DingTalk knows ({@code at.atMobiles}), when it differs
 *     from {@code mobile}
 * @param mobile the person's mobile number: DingTalk's {@code at.atMobiles} unless {@code
 *     dingtalkMobile} is set, and WeCom's {@code mentioned_mobile_list} in text messages for a
 *     person without a WeCom userid
 */
public record Person(
    String name, String wecomUserId, String dingtalkUserId, String dingtalkMobile, String mobile) {

  /** A person without a general mobile number. */
  public Person(String name, String wecomUserId, String dingtalkUserId, String dingtalkMobile) {
    this(name, wecomUserId, dingtalkUserId, dingtalkMobile, null);
  }

  /** The number DingTalk mentions: {@code dingtalk_mobile}, else {@code mobile}, else null. */
  public String dingtalkAtMobile() {
    return dingtalkMobile != null ? dingtalkMobile : mobile;
  }

  /** A mobile number of the person for WeCom: {@code mobile}, else {@code dingtalk_mobile}. */
  public String wecomMobile() {
    return mobile != null ? mobile : dingtalkMobile;
  }
}
