package io.fabricpulse.collectors.nccl;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of one NCCL_DEBUG line around the message.
 *
 * <p>NCCL builds each line in {@code ncclDebugLog} [NCCL-debug] as: an optional timestamp ({@code
 * NCCL_DEBUG_TIMESTAMP_FORMAT}, default {@code [%F %T] }), then {@code host:pid:tid }, then {@code
 * [cudaDev] NCCL INFO msg}, {@code [cudaDev] file:line NCCL WARN msg} (newer builds add {@code
 * (func)} after file:line), or {@code [cudaDev] elapsed_ms file:line NCCL TRACE msg}. WARN lines
 * start with an extra newline, so a blank line precedes them. Launchers add their own prefix in
 * front ({@code srun --label}'s {@code 0: }, torchrun's {@code [default0]:}), and some captures
 * keep only {@code NCCL INFO msg}. The {@code NCCL_LOG_VERSION} level prints {@code NCCL version
 * ...} with no prefix at all.
 *
 * @param before text in front of the NCCL part (timestamp, launcher label), empty when none
 * @param host host name, null when the line has no {@code host:pid:tid} prefix
 * @param pid process id, null when absent
 * @param tid thread id, null when absent
 * @param cudaDev CUDA device from {@code [n]}, null when absent
 * @param level INFO, WARN, TRACE, or null for the bare version line
 * @param source {@code file:line} of WARN and TRACE lines, null otherwise
 * @param message the message after {@code NCCL LEVEL }
 */
public record NcclLinePrefix(
    String before,
    String host,
    Integer pid,
    Integer tid,
    Integer cudaDev,
    String level,
    String source,
    String message) {

  private static final Pattern LINE =
      Pattern.compile(
          "^(?<before>.*?)"
              + "(?:(?<host>[^\\s:\\[\\]]+):(?<pid>\\d+):(?<tid>\\d+) )?"
              + "(?:\\[(?<dev>\\d{1,9})\\] )?"
              + "(?:\\d+\\.\\d+ )?"
              + "(?:(?<src>[^\\s:]+:\\d+)(?: \\([^)]*\\))? )?"
              + "NCCL (?<level>INFO|WARN|TRACE)(?: (?<msg>.*))?$");

  /** {@code NCCL version %s} printed at the NCCL_LOG_VERSION level, without host or level. */
  private static final Pattern BARE_VERSION =
      Pattern.compile("^(?<before>.*?)(?<msg>NCCL version \\S+.*)$");

  /**
   * Parses the prefix; empty when the line is not an NCCL_DEBUG line (or its pid/tid do not fit an
   * int, which only a garbled line produces).
   */
  public static Optional<NcclLinePrefix> parse(String line) {
    if (line.indexOf("NCCL ") < 0) {
      return Optional.empty();
    }
    Matcher m = LINE.matcher(line);
    if (m.matches()) {
      String msg = m.group("msg");
      Integer pid = toInt(m.group("pid"));
      Integer tid = toInt(m.group("tid"));
      if (m.group("host") != null && (pid == null || tid == null)) {
        return Optional.empty();
      }
      return Optional.of(
          new NcclLinePrefix(
              m.group("before"),
              m.group("host"),
              pid,
              tid,
              toInt(m.group("dev")),
              m.group("level"),
              m.group("src"),
              msg == null ? "" : msg));
    }
    Matcher v = BARE_VERSION.matcher(line);
    if (v.matches()) {
      return Optional.of(
          new NcclLinePrefix(
              v.group("before"), null, null, null, null, null, null, v.group("msg")));
    }
    return Optional.empty();
  }

  /** Numbers wider than an int (a garbled line) are treated as absent. */
  private static Integer toInt(String digits) {
    if (digits == null) {
      return null;
    }
    if (digits.length() > 10) {
      return null;
    }
    long value = Long.parseLong(digits);
    return value > Integer.MAX_VALUE ? null : (int) value;
  }
}
