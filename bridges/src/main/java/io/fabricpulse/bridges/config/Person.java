package io.fabricpulse.bridges.config;

/**
 * One person who can be @-mentioned, with an identity per robot kind. Any identity may be null when
 * the person has none there.
 *
 * @param wecomUserId the WeCom userid ({@code mentioned_list}, {@code <@userid>})
 * @param dingtalkUserId the DingTalk userId ({@code at.atUserIds})
 * @param dingtalkMobile the mobile number DingTalk knows ({@code at.atMobiles})
 */
public record Person(
    String name, String wecomUserId, String dingtalkUserId, String dingtalkMobile) {}
