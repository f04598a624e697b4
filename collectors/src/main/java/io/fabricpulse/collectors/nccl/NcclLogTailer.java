package io.fabricpulse.collectors.nccl;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows NCCL log files matching glob patterns and returns the complete lines added since the last
 * {@link #poll}, each with its file, 1-based line number and job id.
 *
 * <p>Patterns are globs ({@code /var/log/nccl/*.log}, {@code /scratch/**}{@code /slurm-*.out}) or
 * {@code NCCL_DEBUG_FILE} patterns, whose {@code %h} (host) and {@code %p} (pid) match any text.
 * Files are read from their start when first seen: NCCL prints what the transport verdict needs at
 * init. A file that shrinks (truncated) or is replaced by another file at the same path (rotated)
 * is read again from its start. A line without its newline yet is left for the next poll. The job
 * id is group 1 of a configurable regex found in the path (e.g. {@code slurm-(\d+)\.out}), or null.
 */
public final class NcclLogTailer implements NcclLineSource {
  private static final Logger log = LoggerFactory.getLogger(NcclLogTailer.class);

  /** Bytes read per file per poll: bounds memory on a huge backlog; the rest comes next poll. */
  static final int DEFAULT_MAX_BYTES_PER_POLL = 4 << 20;

  /** A longer line without a newline is cut here and returned in pieces. */
  static final int MAX_LINE_BYTES = 64 << 10;

  private final List<Glob> globs;
  private final Pattern jobPattern;
  private final int maxBytesPerPoll;
  private final Map<Path, Position> positions = new HashMap<>();

  private record Glob(Path root, PathMatcher matcher, int depth) {}

  /** Where reading of one file stands. */
  private static final class Position {
    Object fileKey;
    long offset;
    long lineNo;
  }

  /**
   * @param patterns globs or NCCL_DEBUG_FILE patterns (absolute paths)
   * @param jobFromPath regex whose group 1, found in the file path, is the job id; null for none
   */
  public NcclLogTailer(List<String> patterns, Pattern jobFromPath) {
    this(patterns, jobFromPath, DEFAULT_MAX_BYTES_PER_POLL);
  }

  NcclLogTailer(List<String> patterns, Pattern jobFromPath, int maxBytesPerPoll) {
    this.globs = patterns.stream().map(NcclLogTailer::compile).toList();
    this.jobPattern = jobFromPath;
    // At least one longest line per poll, so a file without newlines still makes progress.
    this.maxBytesPerPoll = Math.max(maxBytesPerPoll, MAX_LINE_BYTES);
  }

  /** Complete lines added since the last poll, file by file in path order. */
  public List<NcclLogLine> poll() {
    Set<Path> files = matchingFiles();
    positions.keySet().retainAll(files);
    List<NcclLogLine> lines = new ArrayList<>();
    for (Path file : files) {
      try {
        readNewLines(file, lines);
      } catch (NoSuchFileException gone) {
        positions.remove(file);
      } catch (IOException e) {
        // One unreadable file must not stop the others; the next poll retries it.
        log.warn("cannot read NCCL log {}: {}", file, e.toString());
      }
    }
    return lines;
  }

  /** The job id the path names, or null. */
  public String jobOf(Path file) {
    if (jobPattern == null) {
      return null;
    }
    Matcher m = jobPattern.matcher(file.toString());
    return m.find() && m.groupCount() >= 1 ? m.group(1) : null;
  }

  /** Files currently followed (for tests and status). */
  public Set<Path> followedFiles() {
    return Set.copyOf(positions.keySet());
  }

  private void readNewLines(Path file, List<NcclLogLine> out) throws IOException {
    BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
    Position pos = positions.computeIfAbsent(file, f -> new Position());
    Object key = attrs.fileKey();
    if (attrs.size() < pos.offset || (pos.fileKey != null && !Objects.equals(pos.fileKey, key))) {
      log.info("NCCL log {} was truncated or replaced; reading it from the start", file);
      pos.offset = 0;
      pos.lineNo = 0;
    }
    pos.fileKey = key;
    if (attrs.size() == pos.offset) {
      return;
    }
    String job = jobOf(file);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long toRead = Math.min(channel.size() - pos.offset, maxBytesPerPoll);
      ByteBuffer buffer = ByteBuffer.allocate((int) toRead);
      while (buffer.hasRemaining() && channel.read(buffer, pos.offset + buffer.position()) > 0) {
        // read until the buffer is full or the file ends
      }
      byte[] bytes = buffer.array();
      int length = buffer.position();
      int start = 0;
      for (int i = 0; i < length; i++) {
        boolean newline = bytes[i] == '\n';
        if (newline || i - start + 1 >= MAX_LINE_BYTES) {
          int end = newline ? i : i + 1;
          out.add(new NcclLogLine(file.toString(), ++pos.lineNo, decode(bytes, start, end), job));
          start = i + 1;
        }
      }
      pos.offset += start;
    }
  }

  /** UTF-8 text of one line, without the '\r' of a CRLF terminator. */
  private static String decode(byte[] bytes, int start, int end) {
    if (end > start && bytes[end - 1] == '\r') {
      end--;
    }
    return new String(bytes, start, end - start, StandardCharsets.UTF_8);
  }

  private Set<Path> matchingFiles() {
    Set<Path> files = new TreeSet<>();
    for (Glob glob : globs) {
      if (!Files.isDirectory(glob.root())) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(glob.root(), glob.depth())) {
        walk.filter(p -> glob.matcher().matches(p) && Files.isRegularFile(p)).forEach(files::add);
      } catch (IOException | java.io.UncheckedIOException e) {
        log.warn("cannot list {}: {}", glob.root(), e.toString());
      }
    }
    return files;
  }

  /**
   * Why {@code pattern} cannot be followed (not a glob, not a path), or null when it can: the
   * configuration checks every pattern before the tailer is built.
   */
  public static String problem(String pattern) {
    try {
      compile(pattern);
      return null;
    } catch (java.util.regex.PatternSyntaxException e) {
      return "'" + pattern + "' is not a glob: " + e.getDescription() + " at index " + e.getIndex();
    } catch (java.nio.file.InvalidPathException e) {
      return "'" + pattern + "' is not a path: " + e.getReason();
    }
  }

  /**
   * Splits a pattern into the directory before its first wildcard (walked) and a matcher for the
   * whole path. {@code %h}, {@code %p} (NCCL_DEBUG_FILE) become {@code *}; {@code %%} is {@code %}.
   */
  private static Glob compile(String pattern) {
    String glob = pattern.replace("%h", "*").replace("%p", "*").replace("%%", "%");
    Path absolute = Paths.get(glob).toAbsolutePath();
    String normalized = absolute.toString();
    Path root = absolute.getRoot();
    List<String> literal = new ArrayList<>();
    int wildcardSegments = 0;
    boolean recursive = false;
    boolean inWildcards = false;
    for (Path segment : absolute) {
      String s = segment.toString();
      boolean wildcard = s.chars().anyMatch(c -> "*?[{".indexOf(c) >= 0);
      if (wildcard || inWildcards) {
        inWildcards = true;
        wildcardSegments++;
        recursive |= s.contains("**");
      } else {
        literal.add(s);
      }
    }
    Path base = root;
    for (String s : literal) {
      base = base.resolve(s);
    }
    if (!inWildcards) {
      // A plain file path: follow that file.
      base = absolute.getParent();
      wildcardSegments = 1;
    }
    PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + escape(normalized));
    return new Glob(base, matcher, recursive ? Integer.MAX_VALUE : wildcardSegments);
  }

  /** Backslashes are path text here, not glob escapes (Windows is not a target, but be exact). */
  private static String escape(String glob) {
    return glob.replace("\\", "\\\\");
  }
}
