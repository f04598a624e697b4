package io.fabricpulse.app.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * Lines of a stream as raw bytes (without the {@code \n} or {@code \r\n}), so each line is decoded
 * on its own and a line longer than a bound is skipped without being held in memory.
 */
final class ByteLines implements Closeable {
  /** Returned by {@link #next()} for a line longer than the bound (its bytes are dropped). */
  static final byte[] TOO_LONG = new byte[0];

  private final InputStream in;
  private final int maxBytes;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private long lineNumber;

  ByteLines(InputStream in, int maxBytes) {
    this.in = new BufferedInputStream(in, 1 << 16);
    this.maxBytes = maxBytes;
  }

  /** The next line, {@link #TOO_LONG}, or null at the end of the input. */
  byte[] next() throws IOException {
    line.reset();
    boolean tooLong = false;
    int b;
    while ((b = in.read()) != -1 && b != '\n') {
      if (line.size() < maxBytes) {
        line.write(b);
      } else {
        tooLong = true;
      }
    }
    if (b == -1 && line.size() == 0 && !tooLong) {
      return null;
    }
    lineNumber++;
    if (tooLong) {
      return TOO_LONG;
    }
    byte[] bytes = line.toByteArray();
    int length = bytes.length;
    if (length > 0 && bytes[length - 1] == '\r') {
      return java.util.Arrays.copyOf(bytes, length - 1);
    }
    return bytes;
  }

  /** The 1-based number of the line {@link #next()} returned last. */
  long lineNumber() {
    return lineNumber;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
