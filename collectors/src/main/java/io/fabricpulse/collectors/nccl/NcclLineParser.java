package io.fabricpulse.collectors.nccl;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.schemas.nccl.NcclFailureClass;
import io.fabricpulse.schemas.nccl.NcclFailures;
import io.fabricpulse.schemas.nccl.NcclKind;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Turns NCCL_DEBUG log lines into {@link NcclLog} records, version-aware.
 *
 * <p>No I/O: a function of the lines it is given, in order. It keeps what NCCL prints once per
 * process and applies to the lines after it: the {@code NCCL version} and the last {@code commId},
 * per (host, pid) (per file for lines without the {@code host:pid:tid} prefix). Lines that are not
 * NCCL_DEBUG lines (application output, launcher banners, blank lines) are skipped and counted, not
 * treated as malformed, except application lines that report a fatal NCCL failure (PyTorch
 * ProcessGroupNCCL watchdog and abort lines, {@code NCCL error in: ...}; {@link
 * NcclFailures#ofApplicationLine}), which become {@link NcclKind#APP_ERROR} records. WARN and
 * APP_ERROR records of a fatal failure carry its class in attr {@code failure}. One instance per
 * stream of lines (a tailer, a {@code parse} run).
 *
 * <p>A record's time is the line's own timestamp when it carries one ({@link NcclLineTime}: NCCL's
 * {@code NCCL_DEBUG_TIMESTAMP_FORMAT} prefix, ISO-8601, {@code dmesg -T}, PyTorch/glog), read in
 * the parser's zone; attr {@code time_from=line} says so. Otherwise it is the context's time (the
 * poll, or the file's modification time for {@code parse}, which then applies {@link
 * #timeUndatedFromNeighbours}).
 *
 * <p>A WARN completion error that the capture wrapped onto a second line (the second line has no
 * NCCL prefix) is held until the next line and joined with it; {@link #flush} emits a held WARN.
 */
public final class NcclLineParser {

  /** Upper bound on remembered processes, so a long-running collector stays bounded. */
  private static final int MAX_PROCESSES = 10_000;

  private static final Pattern NCCL_MARKER = Pattern.compile("NCCL (?:INFO|WARN|TRACE)\\b");

  private final Map<String, ProcessState> processes =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ProcessState> eldest) {
          return size() > MAX_PROCESSES;
        }
      };

  private final NcclLineTime lineTime;
  private Held held;
  private long nonNcclLines;

  /** A parser reading local timestamps in lines as UTC. */
  public NcclLineParser() {
    this(ZoneOffset.UTC);
  }

  /**
   * @param zone zone of the local timestamps in lines (the node's zone; NCCL prints local time)
   */
  public NcclLineParser(ZoneId zone) {
    this.lineTime = new NcclLineTime(zone);
  }

  /** What NCCL said once for a process and applies to its later lines. */
  private static final class ProcessState {
    String version;
    String commId;
  }

  /** A WARN line waiting for its wrapped continuation. */
  private record Held(
      NcclLogLine line,
      NcclLinePrefix prefix,
      SampleContext ctx,
      Instant time,
      String version,
      String commId) {}

  /** Parses one line, adding 0, 1 or 2 records (a held WARN and this line) to {@code out}. */
  public void parse(NcclLogLine line, SampleContext ctx, ParseResult<NcclLog> out) {
    String text = line.text();
    if (held != null) {
      Held wrapped = held;
      held = null;
      boolean continuation =
          wrapped.line().file().equals(line.file())
              && !text.isBlank()
              && NcclLinePrefix.parse(text).isEmpty()
              && NcclFailures.ofApplicationLine(text).isEmpty();
      if (continuation) {
        out.add(joined(wrapped, line));
        return;
      }
      out.add(build(wrapped, wrapped.prefix().message(), wrapped.line().text()));
    }
    var parsed = NcclLinePrefix.parse(text);
    if (parsed.isEmpty() || parsed.get().level() == null) {
      // an application line; "NCCL error in: ..., NCCL version 2.26.2" is not a version banner
      Optional<NcclFailureClass> failure = NcclFailures.ofApplicationLine(text);
      if (failure.isPresent()) {
        out.add(applicationRecord(line, ctx, failure.get()));
        return;
      }
    }
    if (parsed.isEmpty()) {
      if (NCCL_MARKER.matcher(text).find()) {
        out.skip(line.file(), line.lineNo(), "NCCL marker without the NCCL_DEBUG line layout");
      } else {
        nonNcclLines++;
      }
      return;
    }
    NcclLinePrefix prefix = parsed.get();
    ProcessState state = stateFor(line.file(), prefix);
    NcclMessageClassifier.Classification classification =
        NcclMessageClassifier.classify(prefix.message(), prefix.level());
    if (classification.kind() == NcclKind.VERSION) {
      state.version = classification.attrs().get("version");
    }
    String commId = NcclMessageClassifier.commId(prefix.message());
    if (commId != null) {
      state.commId = commId;
    }
    String version = versionFor(line.file(), state);
    Instant time = lineTime.of(prefix.before(), ctx.time());
    if ("WARN".equals(prefix.level())
        && NcclMessageClassifier.isTruncatedCompletionError(prefix.message())) {
      held = new Held(line, prefix, ctx, time, version, state.commId);
      return;
    }
    out.add(
        record(
            line,
            prefix,
            ctx,
            time,
            version,
            state.commId,
            classification,
            prefix.message(),
            text));
  }

  /** Emits a WARN still waiting for a continuation line (end of input or of a poll). */
  public void flush(ParseResult<NcclLog> out) {
    if (held != null) {
      out.add(build(held, held.prefix().message(), held.line().text()));
      held = null;
    }
  }

  /** Parses lines in order and flushes. */
  public ParseResult<NcclLog> parseAll(List<NcclLogLine> lines, SampleContext ctx) {
    ParseResult<NcclLog> out = new ParseResult<>();
    for (NcclLogLine line : lines) {
      parse(line, ctx, out);
    }
    flush(out);
    return out;
  }

  /**
   * A line of the application that reports an NCCL failure: no host, pid or level; the message is
   * the whole line. NCCL's version is the one the same file printed without a prefix, if any.
   */
  private NcclLog applicationRecord(NcclLogLine line, SampleContext ctx, NcclFailureClass failure) {
    String text = line.text();
    Map<String, String> attrs = new LinkedHashMap<>();
    attrs.put("failure", failure.id());
    ProcessState fileState = processes.get(fileKey(line.file()));
    return stamped(line, ctx, lineTime.of(text, ctx.time()), attrs)
        .setNcclVersion(fileState == null ? null : fileState.version)
        .setKind(NcclKind.APP_ERROR.name())
        .setMessage(text.strip())
        .setRawLine(text)
        .build();
  }

  /**
   * For replaying whole files ({@code parse}): a record whose line carries no timestamp takes the
   * time of the nearest earlier line of the same file that does, else of the nearest later one
   * (attr {@code time_from=neighbour}); only in a file without any timestamp does it keep the
   * context's time (the file's modification time). NCCL stamps only WARN lines by default ({@code
   * NCCL_DEBUG_TIMESTAMP_LEVELS}), and an application's traceback line printed right after a
   * stamped WARN belongs to that moment, not to the time the file was last written. The live agent
   * does not do this: the time it reads a new line is close to when it was written.
   */
  public static void timeUndatedFromNeighbours(List<NcclLog> records) {
    Map<String, List<NcclLog>> byFile = new LinkedHashMap<>();
    for (NcclLog r : records) {
      byFile.computeIfAbsent(r.getFile(), f -> new ArrayList<>()).add(r);
    }
    for (List<NcclLog> file : byFile.values()) {
      Instant earlier = null;
      List<NcclLog> leading = new ArrayList<>();
      for (NcclLog r : file) {
        if ("line".equals(r.getAttrs().get("time_from"))) {
          if (earlier == null) {
            for (NcclLog before : leading) {
              dateFromNeighbour(before, r.getTime());
            }
          }
          earlier = r.getTime();
        } else if (earlier != null) {
          dateFromNeighbour(r, earlier);
        } else {
          leading.add(r);
        }
      }
    }
  }

  private static void dateFromNeighbour(NcclLog record, Instant time) {
    record.setTime(time);
    Map<String, String> attrs = new LinkedHashMap<>(record.getAttrs());
    attrs.put("time_from", "neighbour");
    record.setAttrs(attrs);
  }

  /** Numbers the texts of one file from 1, for parsing a whole captured log. */
  public static List<NcclLogLine> linesOf(String file, List<String> texts, String job) {
    List<NcclLogLine> lines = new ArrayList<>(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      lines.add(new NcclLogLine(file, i + 1, texts.get(i), job));
    }
    return lines;
  }

  /**
   * Whether {@code line} is one this parser reads: an NCCL_DEBUG line (or one with an NCCL marker)
   * or an application line reporting an NCCL failure. {@code parse} uses this to tell a capture of
   * another tool (the wrong {@code --format}) from a job log.
   */
  public static boolean isNcclLine(String line) {
    return NcclLinePrefix.parse(line).isPresent()
        || NCCL_MARKER.matcher(line).find()
        || NcclFailures.ofApplicationLine(line).isPresent();
  }

  /** Lines seen so far that were not NCCL_DEBUG lines (skipped, not malformed). */
  public long nonNcclLines() {
    return nonNcclLines;
  }

  private ProcessState stateFor(String file, NcclLinePrefix prefix) {
    String key = prefix.host() != null ? prefix.host() + ":" + prefix.pid() : fileKey(file);
    return processes.computeIfAbsent(key, k -> new ProcessState());
  }

  /**
   * The process's own version, else one printed in the same file without a prefix (the
   * NCCL_LOG_VERSION line and captures that dropped the prefix).
   */
  private String versionFor(String file, ProcessState state) {
    if (state.version != null) {
      return state.version;
    }
    ProcessState fileState = processes.get(fileKey(file));
    return fileState == null ? null : fileState.version;
  }

  private static String fileKey(String file) {
    return "file:" + file;
  }

  private NcclLog joined(Held wrapped, NcclLogLine continuation) {
    // The capture broke the message at a space ("... len" / "0, vendor err 129 (Recv)").
    String message = wrapped.prefix().message() + " " + continuation.text().strip();
    String raw = wrapped.line().text() + "\n" + continuation.text();
    return build(wrapped, message, raw);
  }

  private static NcclLog build(Held h, String message, String raw) {
    return record(
        h.line(),
        h.prefix(),
        h.ctx(),
        h.time(),
        h.version(),
        h.commId(),
        NcclMessageClassifier.classify(message, h.prefix().level()),
        message,
        raw);
  }

  private static NcclLog record(
      NcclLogLine line,
      NcclLinePrefix prefix,
      SampleContext ctx,
      Instant time,
      String version,
      String commId,
      NcclMessageClassifier.Classification classification,
      String message,
      String raw) {
    Map<String, String> attrs = new LinkedHashMap<>(classification.attrs());
    if (prefix.source() != null) {
      attrs.put("src", prefix.source());
    }
    if ("WARN".equals(prefix.level())) {
      NcclFailures.ofWarn(message, prefix.source()).ifPresent(f -> attrs.put("failure", f.id()));
    }
    return stamped(line, ctx, time, attrs)
        .setHost(prefix.host())
        .setPid(prefix.pid())
        .setTid(prefix.tid())
        .setCudaDev(prefix.cudaDev())
        .setLevel(prefix.level())
        .setCommId(commId)
        .setNcclVersion(version)
        .setKind(classification.kind().name())
        .setMessage(message)
        .setRawLine(raw)
        .build();
  }

  /**
   * What every record of a line has: the node, the line's place, and its time, the line's own
   * ({@code time_from=line} in {@code attrs}, then set on the builder) or else the context's.
   */
  private static NcclLog.Builder stamped(
      NcclLogLine line, SampleContext ctx, Instant lineTime, Map<String, String> attrs) {
    if (lineTime != null) {
      attrs.put("time_from", "line");
    }
    return NcclLog.newBuilder()
        .setCluster(ctx.cluster())
        .setNode(ctx.node())
        .setBootId(ctx.bootId())
        .setSeq(ctx.nextSeq())
        .setTime(lineTime != null ? lineTime : ctx.time())
        .setFile(line.file())
        .setLineNo(line.lineNo())
        .setJob(line.job())
        .setAttrs(attrs);
  }
}
