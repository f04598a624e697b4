package io.fabricpulse.collectors.kmsg;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code /dev/kmsg} on a daemon thread, so {@link #poll} never blocks.
 *
 * <p>Each read() of /dev/kmsg returns one record {@code "prio,seq,usec,flags;message"} followed by
 * optional dictionary lines that start with a space; a read blocks while no record is pending, and
 * Java cannot open the device non-blocking, hence the thread. Only the first line of a record is
 * kept (the dictionary is dropped); the record header stays on the line so {@link
 * KernelLogXidParser} converts the monotonic {@code usec} to wall time. A read that fails with
 * EPIPE means the ring buffer overwrote records we had not read yet: counted, then reading goes on.
 *
 * <p>Opening /dev/kmsg positions at the oldest record still in the ring buffer. Records stamped
 * before {@code skipBeforeMicros} (the uptime when the collector started) are skipped, so a
 * collector restart does not publish the Xids of this boot a second time; pass 0 to read them all.
 * Reading needs CAP_SYSLOG when {@code kernel.dmesg_restrict=1}; without it use {@link
 * JournalctlKernelLogSource}.
 */
public final class KmsgSource implements KernelLogSource, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(KmsgSource.class);

  /** Lines kept between polls; a poll each second rarely sees more than a few. */
  static final int DEFAULT_CAPACITY = 10_000;

  private final Path device;
  private final long skipBeforeMicros;
  private final LineBuffer buffer;
  private final InputStream in;
  private final Thread reader;
  private volatile boolean closed;
  private volatile IOException failure;
  private volatile long overruns;

  /**
   * Opens the device now (so a permission problem shows at start-up) and starts the reader thread.
   */
  public KmsgSource(Path device, long skipBeforeMicros) throws IOException {
    this(device, skipBeforeMicros, DEFAULT_CAPACITY);
  }

  KmsgSource(Path device, long skipBeforeMicros, int capacity) throws IOException {
    this.device = device;
    this.skipBeforeMicros = skipBeforeMicros;
    this.buffer = new LineBuffer(capacity);
    this.in = Files.newInputStream(device);
    this.reader = new Thread(this::readLoop, "fabricpulse-kmsg-reader");
    reader.setDaemon(true);
    reader.start();
  }

  @Override
  public List<String> poll() throws IOException {
    IOException error = failure;
    List<String> lines = buffer.drain();
    if (lines.isEmpty() && error != null) {
      throw error;
    }
    return lines;
  }

  /**
   * Waits until the reader thread has reached the end of the input (a regular file; the device has
   * none) or {@code timeout} passed; true if it has. Tests read a capture this way instead of
   * polling until lines show up.
   */
  boolean awaitEndOfInput(java.time.Duration timeout) throws InterruptedException {
    reader.join(timeout.toMillis());
    return !reader.isAlive();
  }

  /** Lines dropped because polls did not keep up, plus records the kernel overwrote unread. */
  public long lost() {
    return buffer.dropped() + overruns;
  }

  @Override
  public void close() throws IOException {
    closed = true;
    reader.interrupt();
    in.close();
  }

  private void readLoop() {
    byte[] record = new byte[16 * 1024];
    StringBuilder partial = new StringBuilder();
    while (!closed) {
      int n;
      try {
        n = in.read(record);
      } catch (IOException e) {
        if (closed) {
          return;
        }
        if (String.valueOf(e.getMessage()).contains("Broken pipe")) {
          overruns++;
          continue;
        }
        LOG.warn("{}: read failed, kernel log no longer followed: {}", device, e.toString());
        failure = e;
        return;
      }
      if (n < 0) {
        // A regular file (tests, a capture) ends; the device never does.
        if (partial.length() > 0) {
          accept(partial.toString());
        }
        return;
      }
      // One device read is one record; a plain file gives many lines per read.
      partial.append(new String(record, 0, n, StandardCharsets.UTF_8));
      int newline;
      while ((newline = partial.indexOf("\n")) >= 0) {
        accept(partial.substring(0, newline));
        partial.delete(0, newline + 1);
      }
    }
  }

  private void accept(String line) {
    if (line.isEmpty() || line.startsWith(" ")) {
      return; // dictionary lines (" SUBSYSTEM=pci") belong to the record before
    }
    if (skipBeforeMicros > 0 && stampMicros(line) < skipBeforeMicros) {
      return;
    }
    buffer.add(line);
  }

  /** The usec field of a kmsg record header, or Long.MAX_VALUE when the line has none. */
  static long stampMicros(String line) {
    int semicolon = line.indexOf(';');
    if (semicolon < 0) {
      return Long.MAX_VALUE;
    }
    String[] fields = line.substring(0, semicolon).split(",");
    if (fields.length < 3) {
      return Long.MAX_VALUE;
    }
    try {
      return Long.parseLong(fields[2]);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }
}
