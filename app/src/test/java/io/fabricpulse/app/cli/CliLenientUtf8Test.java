package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How parse and detect read bytes: lenient UTF-8 with counted replacements, bounded lines. */
class CliLenientUtf8Test {

  private static byte[] bytes(Object... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object part : parts) {
      if (part instanceof String text) {
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
      } else {
        out.write((Integer) part);
      }
    }
    return out.toByteArray();
  }

  @Test
  void validTextIsUnchanged() {
    LenientUtf8.Decoded decoded = LenientUtf8.decode(bytes("gpu017 µs → ok\nline 2\n"));
    assertEquals("gpu017 µs → ok\nline 2\n", decoded.text());
    assertTrue(decoded.clean());
  }

  @Test
  void eachInvalidSequenceBecomesOneReplacementAndIsCountedWithItsLine() {
    // line 2: a Latin-1 'é' (0xE9 alone); line 4: two stray continuation bytes; last: a
    // truncated 3-byte sequence at the very end of the input
    byte[] input =
        bytes("ok\n", "caf", 0xE9, "\n", "ok\n", "a", 0x80, "b", 0x80, "c\n", "end", 0xE2, 0x82);
    LenientUtf8.Decoded decoded = LenientUtf8.decode(input);
    assertEquals("ok\ncaf\uFFFD\nok\na\uFFFDb\uFFFDc\nend\uFFFD", decoded.text());
    assertEquals(5, decoded.badBytes());
    assertEquals(3, decoded.badLineCount());
    assertEquals(List.of(2L, 4L, 5L), decoded.badLines());
    assertEquals(
        "5 invalid UTF-8 byte(s) on 3 line(s) (first at line 2) replaced by U+FFFD",
        decoded.summary());
  }

  @Test
  void onlyTheFirstLinesAreKeptButAllAreCounted() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < 100; i++) {
      out.write(0xFF);
      out.write('\n');
    }
    LenientUtf8.Decoded decoded = LenientUtf8.decode(out.toByteArray());
    assertEquals(100, decoded.badLineCount());
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), decoded.badLines());
  }

  @Test
  void byteLinesSplitsOnNewlinesDropsCarriageReturnsAndSkipsOverlongLines() throws Exception {
    byte[] input = bytes("a\r\n", "\n", "x".repeat(50), "\n", "last");
    try (ByteLines lines = new ByteLines(new ByteArrayInputStream(input), 10)) {
      assertArrayEquals(bytes("a"), lines.next());
      assertArrayEquals(new byte[0], lines.next());
      assertSame(ByteLines.TOO_LONG, lines.next());
      assertEquals(3, lines.lineNumber());
      assertArrayEquals(bytes("last"), lines.next());
      assertEquals(4, lines.lineNumber());
      assertNull(lines.next());
    }
  }

  @Test
  void byteLinesJoinsALineAcrossReadChunksAndSkipsAnOverlongOneThatSpansThem() throws Exception {
    String long1 = "y".repeat(100_000); // longer than one 64 KiB read
    String long2 = "z".repeat(200_000);
    byte[] input = bytes(long1, "\r\n", long2, "\n", "after\n");
    try (ByteLines lines = new ByteLines(new ByteArrayInputStream(input), 150_000)) {
      assertArrayEquals(bytes(long1), lines.next());
      assertSame(ByteLines.TOO_LONG, lines.next());
      assertArrayEquals(bytes("after"), lines.next());
      assertEquals(3, lines.lineNumber());
      assertNull(lines.next());
    }
  }
}
