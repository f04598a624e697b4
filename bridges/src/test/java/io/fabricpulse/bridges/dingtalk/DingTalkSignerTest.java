package io.fabricpulse.bridges.dingtalk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DingTalkSignerTest {

  /**
   * The public test vector of CatchZeng/dingtalk internal/security/security_test.go
   * (https://github.com/CatchZeng/dingtalk), which implements the official algorithm
   * (https://open.dingtalk.com/document/robots/customize-robot-security-settings).
   */
  @Test
  void signsThePublishedVector() {
    assertEquals(
        "BQKsG%2BQOCl%2BbYJOLc6pxDHxjVquzlZPWgvRzeN2J5zY%3D",
        DingTalkSigner.sign(
            1582163555000L, "SECb90923e19e58b466481e9e7b7a5b4f108a4531abde590ad3967fb29f0eae5c68"));
  }

  @Test
  void encodesTheBase64ExactlyOnce() {
    // base64 sSFWELbV2YwjdDQhWZwTcWlX5BWUx5J6TPpsZmuPii0= : only the '=' needs encoding, once
    assertEquals(
        "sSFWELbV2YwjdDQhWZwTcWlX5BWUx5J6TPpsZmuPii0%3D",
        DingTalkSigner.sign(1700000000000L, "this is secret"));
  }
}
