package io.fabricpulse.bridges.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8Test {

  @Test
  void countsBytesTheWayTheRobotsDo() {
    assertEquals(5, Utf8.length("gpu01"));
    assertEquals(6, Utf8.length("告警")); // a Chinese character is 3 bytes
    assertEquals(4, Utf8.length("🔥")); // a surrogate pair is 4
    assertEquals(2, Utf8.length("é"));
    String mixed = "节点 gpu007 告警🔥";
    assertEquals(mixed.getBytes(StandardCharsets.UTF_8).length, Utf8.length(mixed));
  }

  @Test
  void truncatesOnCharacterBoundariesWithinTheLimit() {
    String s = "暂停帧风暴持续三十秒";
    for (int max = 3; max <= 40; max++) {
      String t = Utf8.truncate(s, max);
      assertTrue(Utf8.length(t) <= max, max + ": " + t);
      byte[] bytes = t.getBytes(StandardCharsets.UTF_8);
      assertEquals(t, new String(bytes, StandardCharsets.UTF_8)); // still valid UTF-8
      if (Utf8.length(s) > max) {
        assertTrue(t.endsWith(Utf8.ELLIPSIS));
        assertTrue(s.startsWith(t.substring(0, t.length() - 1)));
      }
    }
    assertEquals("暂停…", Utf8.truncate(s, 9));
    assertEquals(s, Utf8.truncate(s, 30));
    assertEquals("a🔥…", Utf8.truncate("a🔥🔥🔥", 8)); // never half a surrogate pair
  }
}
