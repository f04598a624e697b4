package io.fabricpulse.collectors.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Seeded mutations of one line of a capture, as bytes: what a torn read, a flipped bit, a binary
 * blob in a log, a runaway line or a counter beyond its width puts in front of a parser. The
 * mutated bytes are decoded the way the agent decodes what it reads ({@code new String(bytes,
 * UTF_8)}: every invalid sequence becomes U+FFFD).
 */
final class LineMutator {
  /** What was done to the line; {@link #TRUNCATE_FILE} also drops every line after it. */
  enum Kind {
    TRUNCATE_FILE,
    TRUNCATE_LINE,
    BYTE_FLIP,
    INVALID_UTF8,
    CONTROL_BYTES,
    NUMBER_OUT_OF_RANGE,
    HUGE_LINE
  }

  private static final String[] OUT_OF_RANGE = {
    "18446744073709551616", // 2^64
    "18446744073709551615", // 2^64-1
    "9223372036854775808", // 2^63
    "-9223372036854775809",
    "4294967296", // 2^32
    "-1",
    "99999999999999999999999999999999999999",
    "1e309",
    "-0",
    "0x" + "f".repeat(24),
    "NaN",
    "00000000000000000000000000000000000000001"
  };

  private static final byte[][] INVALID = {
    {(byte) 0xff},
    {(byte) 0xc0, (byte) 0x80}, // overlong NUL
    {(byte) 0x80}, // lone continuation byte
    {(byte) 0xe2, (byte) 0x82}, // truncated 3-byte sequence
    {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, // UTF-16 surrogate
    {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80} // beyond U+10FFFF
  };

  private static final byte[] CONTROL = {0, '\r', '\t', 0x1b, 0x7f, '\f', 0x0b};

  /** A huge line: at least this many bytes. */
  static final int HUGE_BYTES = 64 * 1024;

  private final Random random;

  LineMutator(long seed) {
    this.random = new Random(seed);
  }

  Random random() {
    return random;
  }

  Kind nextKind() {
    // Huge lines are 1 in 500 mutations: each costs a parser far more than the others.
    if (random.nextInt(500) == 0) {
      return Kind.HUGE_LINE;
    }
    Kind[] kinds = Kind.values();
    return kinds[random.nextInt(kinds.length - 1)];
  }

  /** The mutated line's text (without its newline). */
  String mutate(String line, Kind kind) {
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
    byte[] out =
        switch (kind) {
          case TRUNCATE_FILE, TRUNCATE_LINE -> truncate(bytes);
          case BYTE_FLIP -> flip(bytes);
          case INVALID_UTF8 -> insert(bytes, INVALID[random.nextInt(INVALID.length)]);
          case CONTROL_BYTES -> insert(bytes, new byte[] {CONTROL[random.nextInt(CONTROL.length)]});
          case NUMBER_OUT_OF_RANGE -> outOfRange(line).getBytes(StandardCharsets.UTF_8);
          case HUGE_LINE -> huge(bytes);
        };
    return new String(out, StandardCharsets.UTF_8);
  }

  private byte[] truncate(byte[] bytes) {
    int cut = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
    byte[] out = new byte[cut];
    System.arraycopy(bytes, 0, out, 0, cut);
    return out;
  }

  private byte[] flip(byte[] bytes) {
    byte[] out = bytes.length == 0 ? new byte[1] : bytes.clone();
    int flips = 1 + random.nextInt(3);
    for (int i = 0; i < flips; i++) {
      int at = random.nextInt(out.length);
      if (random.nextBoolean()) {
        out[at] ^= (byte) (1 << random.nextInt(8));
      } else {
        out[at] = (byte) random.nextInt(256);
      }
    }
    return out;
  }

  private byte[] insert(byte[] bytes, byte[] inserted) {
    int at = random.nextInt(bytes.length + 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + inserted.length);
    out.write(bytes, 0, at);
    out.write(inserted, 0, inserted.length);
    out.write(bytes, at, bytes.length - at);
    return out.toByteArray();
  }

  /** One run of digits (a random one) replaced by a number no counter or field can hold. */
  private String outOfRange(String line) {
    java.util.List<int[]> runs = new java.util.ArrayList<>();
    for (int i = 0; i < line.length(); ) {
      if (Character.isDigit(line.charAt(i))) {
        int start = i;
        while (i < line.length() && Character.isDigit(line.charAt(i))) {
          i++;
        }
        runs.add(new int[] {start, i});
      } else {
        i++;
      }
    }
    String number = OUT_OF_RANGE[random.nextInt(OUT_OF_RANGE.length)];
    if (runs.isEmpty()) {
      return line + " " + number;
    }
    int[] run = runs.get(random.nextInt(runs.size()));
    return line.substring(0, run[0]) + number + line.substring(run[1]);
  }

  /** The line repeated (or one byte, for an empty line) up to {@link #HUGE_BYTES} and beyond. */
  private byte[] huge(byte[] bytes) {
    byte[] unit = bytes.length == 0 ? new byte[] {'x'} : bytes;
    ByteArrayOutputStream out = new ByteArrayOutputStream(HUGE_BYTES + unit.length);
    while (out.size() < HUGE_BYTES) {
      out.write(unit, 0, unit.length);
      out.write(' ');
    }
    return out.toByteArray();
  }
}
