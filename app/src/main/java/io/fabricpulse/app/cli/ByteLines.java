package io.fabricpulse.app.cli;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Lines of a stream as raw bytes (without the {@code \n} or {@code \r\n}), so each line is decoded
 * on its own and a line longer than a bound is skipped without being held in memory.
 *
 * <p>It reads the stream in 64 KiB chunks and finds each newline with a scan of the chunk: a
 * node-counter record is about 10 KB of JSON, and a byte-at-a-time read through a synchronized
 * {@code BufferedInputStream} into a {@code ByteArrayOutputStream} was a quarter of {@code
 * detect}'s CPU (BENCHMARKS.md, "Offline detect: fewer records in the driver").
 */
final class ByteLines implements Closeable {
  /** Returned by {@link #next()} for a line longer than the bound (its bytes are dropped). */
  static final byte[] TOO_LONG = new byte[0];

  private static final int CHUNK = 1 << 16;

  private final InputStream in;
  private final int maxBytes;
  private final byte[] chunk = new byte[CHUNK];
  private int position;
  private int limit;
  private boolean ended;

  /** The part of the current line read from earlier chunks (at most {@code maxBytes}). */
  private byte[] line = new byte[256];

  private int lineLength;
  private long lineNumber;

  ByteLines(InputStream in, int maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  /** The next line, {@link #TOO_LONG}, or null at the end of the input. */
  byte[] next() throws IOException {
    lineLength = 0;
    boolean tooLong = false;
    boolean any = false;
    while (true) {
      if (position == limit && !fill()) {
        if (!any) {
          return null;
        }
        break;
      }
      any = true;
      int newline = indexOfNewline();
      int end = newline >= 0 ? newline : limit;
      int take = end - position;
      if (lineLength + take > maxBytes) {
        tooLong = true;
        take = Math.max(0, maxBytes - lineLength);
      }
      append(take);
      position = newline >= 0 ? newline + 1 : limit;
      if (newline >= 0) {
        break;
      }
    }
    lineNumber++;
    if (tooLong) {
      return TOO_LONG;
    }
    int length = lineLength;
    if (length > 0 && line[length - 1] == '\r') {
      length--;
    }
    return Arrays.copyOf(line, length);
  }

  private int indexOfNewline() {
    for (int i = position; i < limit; i++) {
      if (chunk[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  private void append(int count) {
    if (count == 0) {
      return;
    }
    if (lineLength + count > line.length) {
      line = Arrays.copyOf(line, Math.max(line.length * 2, lineLength + count));
    }
    System.arraycopy(chunk, position, line, lineLength, count);
    lineLength += count;
  }

  private boolean fill() throws IOException {
    if (ended) {
      return false;
    }
    int read = in.read(chunk, 0, CHUNK);
    if (read < 0) {
      ended = true;
      return false;
    }
    position = 0;
    limit = read;
    return true;
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
