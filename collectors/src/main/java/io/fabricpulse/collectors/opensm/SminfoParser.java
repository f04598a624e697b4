package io.fabricpulse.collectors.opensm;

import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.core.Numbers;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code sminfo} output into one {@link SmSweep} (source SMINFO): an SMINFO_POLL when the
 * answer line is there, otherwise SMINFO_FAILED (a failed sminfo is itself a CRITICAL signal
 * [GCM-sm], so it is published, not dropped).
 *
 * <p>Format from rdma-core {@code infiniband-diags/sminfo.c} [SMINFO]: {@code "sminfo: sm lid %d sm
 * guid 0x%PRIx64, activity count %u priority %d state %d %s"}; the state name is one of
 * SMINFO_NOTACT, SMINFO_DISCOVER, SMINFO_STANDBY, SMINFO_MASTER or "???". On failure the tool
 * prints {@code "sminfo: iberror: failed: <what>"} and exits with -1.
 */
public final class SminfoParser {
  private static final Pattern ANSWER =
      Pattern.compile(
          "sminfo: sm lid (\\d+) sm guid (0x[0-9A-Fa-f]+), activity count (\\d+)"
              + " priority (\\d+) state (\\d+) (\\S+)");
  private static final Pattern IBERROR = Pattern.compile("iberror: ");
  private static final Pattern IBWARN = Pattern.compile("ibwarn: ");
  // The state number names the same four SM states the OpenSM log prints ([OSM-helper]), so
  // both sources use one vocabulary; sminfo's own names are shortened (NOTACT, DISCOVER).
  private static final String[] STATE_NAMES = {"NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER"};

  /** Parses a run's output; a non-zero exit or a missing answer line gives SMINFO_FAILED. */
  public ParseResult<SmSweep> parse(SminfoOutput output, SampleContext context) {
    ParseResult<SmSweep> result = new ParseResult<>();
    if (output.exitCode() == 0) {
      for (String line : output.stdout().lines().toList()) {
        Matcher m = ANSWER.matcher(line);
        if (m.find()) {
          SmSweep poll = poll(m, line, context);
          if (poll == null) {
            result.skip("sminfo", 0, "sminfo answer with a number out of range: " + line.strip());
          } else {
            result.add(poll);
          }
          return result;
        }
      }
    }
    result.add(failure(output, context));
    return result;
  }

  /**
   * Parses a captured file: an answer line gives SMINFO_POLL, an {@code iberror}/{@code ibwarn}
   * line SMINFO_FAILED; a capture with neither (empty, or not sminfo output) gives no record and is
   * reported as malformed, since nothing says sminfo ran.
   */
  public ParseResult<SmSweep> parseCapture(String source, String text, SampleContext context) {
    boolean answered = text.lines().anyMatch(line -> ANSWER.matcher(line).find());
    boolean failed =
        text.lines().anyMatch(line -> IBERROR.matcher(line).find() || IBWARN.matcher(line).find());
    if (answered || failed) {
      return parse(text, context);
    }
    ParseResult<SmSweep> result = new ParseResult<>();
    result.skip(
        source,
        0,
        text.isBlank()
            ? "empty sminfo capture"
            : "no 'sminfo: sm lid ...' answer and no iberror/ibwarn line: not sminfo output");
    return result;
  }

  /** Parses text printed by a successful run (e.g. a captured file). */
  public ParseResult<SmSweep> parse(String stdout, SampleContext context) {
    return parse(SminfoOutput.ok(stdout), context);
  }

  /** The answer as a record; null when a number is beyond its field (a LID is 16 bits). */
  private static SmSweep poll(Matcher m, String line, SampleContext context) {
    Integer lid = Numbers.intIn(m.group(1), 0, 0xffff);
    Long activityCount = Numbers.longOrNull(m.group(3));
    Integer priority = Numbers.intIn(m.group(4), 0, 255);
    Integer state = Numbers.intIn(m.group(5), 0, 255);
    if (lid == null || activityCount == null || priority == null || state == null) {
      return null;
    }
    return base(context)
        .setEvent(SmEventKind.SMINFO_POLL)
        .setSmLid(lid)
        .setSmGuid(m.group(2).toLowerCase(java.util.Locale.ROOT))
        .setActivityCount(activityCount)
        .setPriority(priority)
        .setSmState(state >= 0 && state < STATE_NAMES.length ? STATE_NAMES[state] : "UNKNOWN")
        .setMessage(line.strip())
        .setRawLine(line)
        .build();
  }

  private static SmSweep failure(SminfoOutput output, SampleContext context) {
    String reason = firstErrorLine(output);
    return base(context)
        .setEvent(SmEventKind.SMINFO_FAILED)
        .setMessage(reason)
        .setRawLine(reason)
        .build();
  }

  /**
   * The iberror line (the tool's own verdict) if there is one, else the first ibwarn line (libibmad
   * detail), else the first non-blank line, else the exit code.
   */
  private static String firstErrorLine(SminfoOutput output) {
    String all = output.stdout() + "\n" + output.stderr();
    String firstWarning = null;
    String firstNonBlank = null;
    for (String line : all.lines().toList()) {
      if (line.isBlank()) {
        continue;
      }
      if (IBERROR.matcher(line).find()) {
        return line.strip();
      }
      if (firstWarning == null && IBWARN.matcher(line).find()) {
        firstWarning = line.strip();
      }
      if (firstNonBlank == null) {
        firstNonBlank = line.strip();
      }
    }
    if (firstWarning != null) {
      return firstWarning;
    }
    if (firstNonBlank != null) {
      return firstNonBlank;
    }
    return "sminfo exited with code " + output.exitCode() + " and printed nothing";
  }

  private static SmSweep.Builder base(SampleContext context) {
    return SmSweep.newBuilder()
        .setCluster(context.cluster())
        .setNode(context.node())
        .setBootId(context.bootId())
        .setSeq(context.nextSeq())
        .setTime(context.time())
        .setSource(SmSource.SMINFO);
  }
}
