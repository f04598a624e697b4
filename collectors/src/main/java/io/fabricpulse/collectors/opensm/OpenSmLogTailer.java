package io.fabricpulse.collectors.opensm;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a log file and returns the complete lines appended since the previous {@link #poll()}.
 *
 * <ul>
 *   <li><b>Rotation by rename</b> (logrotate, {@code opensm.log} -> {@code opensm.log.1}): the file
 *       at the path has a new file key (inode). The rest of the old file is read through the
 *       still-open channel first, then the new file from its start.
 *   <li><b>Truncation</b> (logrotate copytruncate, or OpenSM itself: when the log exceeds {@code
 *       log_max_size} it calls {@code ftruncate(fd, 0)} and rewinds [OSM-log]): the file is shorter
 *       than our position, so reading restarts at 0 and a pending partial line is dropped.
 *   <li>A missing file is not an error: poll returns nothing until it appears.
 * </ul>
 *
 * A trailing line without '\n' is held back until it is completed. Memory is bounded: at most
 * {@code maxBytesPerPoll} are read per call, and a partial line longer than {@code maxLineBytes} is
 * cut and returned as is.
 */
public final class OpenSmLogTailer implements OpenSmLogSource, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(OpenSmLogTailer.class);
  static final int DEFAULT_MAX_BYTES_PER_POLL = 4 << 20;
  static final int DEFAULT_MAX_LINE_BYTES = 64 << 10;

  private final Path path;
  private final boolean startAtEnd;
  private final int maxBytesPerPoll;
  private final int maxLineBytes;
  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  private FileChannel channel;
  private Object fileKey;
  private long position;
  private long truncations;
  private long rotations;
  private boolean openedBefore;

  private OpenSmLogTailer(Path path, boolean startAtEnd, int maxBytesPerPoll, int maxLineBytes) {
    this.path = Objects.requireNonNull(path);
    this.startAtEnd = startAtEnd;
    this.maxBytesPerPoll = maxBytesPerPoll;
    this.maxLineBytes = maxLineBytes;
  }

  /** Follows new lines only: what the file holds at the first poll is skipped (daemon start). */
  public static OpenSmLogTailer fromEnd(Path path) {
    return new OpenSmLogTailer(path, true, DEFAULT_MAX_BYTES_PER_POLL, DEFAULT_MAX_LINE_BYTES);
  }

  /** Reads the file from its beginning, then follows it. */
  public static OpenSmLogTailer fromStart(Path path) {
    return new OpenSmLogTailer(path, false, DEFAULT_MAX_BYTES_PER_POLL, DEFAULT_MAX_LINE_BYTES);
  }

  /** With explicit bounds, for tests and tuning. */
  public static OpenSmLogTailer fromStart(Path path, int maxBytesPerPoll, int maxLineBytes) {
    return new OpenSmLogTailer(path, false, maxBytesPerPoll, maxLineBytes);
  }

  /** New complete lines since the last call, without line terminators. */
  public List<String> poll() throws IOException {
    List<String> lines = new ArrayList<>();
    if (channel == null) {
      // Only the file found at start-up is skipped; one created later is read from its start.
      boolean opened = open(startAtEnd && !openedBefore);
      openedBefore = true;
      if (!opened) {
        return lines;
      }
    }
    Object keyAtPath = currentKey();
    if (keyAtPath == null) {
      // Deleted or renamed away and not yet recreated: finish what the old file holds.
      readAvailable(lines);
      return lines;
    }
    if (fileKey != null && !fileKey.equals(keyAtPath)) {
      readAvailable(lines);
      flushPartial(lines);
      closeChannel();
      rotations++;
      LOG.info("{} was rotated; following the new file from its start", path);
      if (!open(false)) {
        return lines;
      }
    }
    if (channel.size() < position) {
      truncations++;
      LOG.info("{} was truncated to {} bytes; reading from its start", path, channel.size());
      position = 0;
      partial.reset();
    }
    readAvailable(lines);
    return lines;
  }

  /** How often the file was found truncated. */
  public long truncations() {
    return truncations;
  }

  /** How often the file was found replaced by a new one. */
  public long rotations() {
    return rotations;
  }

  @Override
  public void close() throws IOException {
    closeChannel();
  }

  private boolean open(boolean atEnd) throws IOException {
    try {
      channel = FileChannel.open(path, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      return false;
    }
    fileKey = currentKey();
    position = atEnd ? channel.size() : 0;
    partial.reset();
    return true;
  }

  private Object currentKey() throws IOException {
    try {
      Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
      // Without file keys (some filesystems) only truncation can be detected.
      return key != null ? key : "no-file-key";
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private void readAvailable(List<String> lines) throws IOException {
    long budget = maxBytesPerPoll;
    ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(budget, 64 << 10));
    while (budget > 0) {
      buffer.clear();
      if (buffer.capacity() > budget) {
        buffer.limit((int) budget);
      }
      int n = channel.read(buffer, position);
      if (n <= 0) {
        return;
      }
      position += n;
      budget -= n;
      byte[] bytes = buffer.array();
      for (int i = 0; i < n; i++) {
        byte b = bytes[i];
        if (b == '\n') {
          lines.add(partialAsString());
        } else {
          partial.write(b);
          if (partial.size() >= maxLineBytes) {
            lines.add(partialAsString());
          }
        }
      }
    }
  }

  private void flushPartial(List<String> lines) {
    if (partial.size() > 0) {
      lines.add(partialAsString());
    }
  }

  private String partialAsString() {
    String line = partial.toString(StandardCharsets.UTF_8);
    partial.reset();
    return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
  }

  private void closeChannel() throws IOException {
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }
}
