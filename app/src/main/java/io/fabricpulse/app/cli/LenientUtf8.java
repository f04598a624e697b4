package io.fabricpulse.app.cli;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes UTF-8 text that may hold invalid bytes (real dmesg and Slurm logs do: a truncated
 * multi-byte name, a binary blob a program printed): each invalid sequence becomes U+FFFD, and the
 * bytes and lines affected are counted, so one bad byte costs one character, not the file.
 */
final class LenientUtf8 {
  /** Line numbers kept to show where the bad bytes are; the count is always exact. */
  static final int LINES_KEPT = 5;

  /**
   * The decoded text and what was replaced.
   *
   * @param badBytes bytes that were not valid UTF-8
   * @param badLineCount lines holding at least one of them
   * @param badLines the first {@link #LINES_KEPT} of those lines (1-based)
   */
  record Decoded(String text, long badBytes, long badLineCount, List<Long> badLines) {
    boolean clean() {
      return badBytes == 0;
    }

    /** {@code 3 invalid UTF-8 byte(s) on 2 line(s) (first at line 7) replaced by U+FFFD}. */
    String summary() {
      return badBytes
          + " invalid UTF-8 byte(s) on "
          + badLineCount
          + " line(s) (first at line "
          + badLines.get(0)
          + ") replaced by U+FFFD";
    }
  }

  private LenientUtf8() {}

  static Decoded decode(byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    // UTF-8 never decodes to more chars than bytes, and a replacement takes at least one byte.
    CharBuffer out = CharBuffer.allocate(bytes.length);
    long badBytes = 0;
    long badLineCount = 0;
    List<Long> badLines = new ArrayList<>();
    long line = 1;
    int scanned = 0;
    long lastBadLine = 0;
    while (true) {
      CoderResult result = decoder.decode(in, out, true);
      if (!result.isError()) {
        break;
      }
      for (; scanned < out.position(); scanned++) {
        if (out.get(scanned) == '\n') {
          line++;
        }
      }
      badBytes += result.length();
      if (line != lastBadLine) {
        lastBadLine = line;
        badLineCount++;
        if (badLines.size() < LINES_KEPT) {
          badLines.add(line);
        }
      }
      out.put('\uFFFD');
      in.position(in.position() + result.length());
    }
    decoder.flush(out);
    out.flip();
    return new Decoded(out.toString(), badBytes, badLineCount, List.copyOf(badLines));
  }
}
