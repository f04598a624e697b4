package io.fabricpulse.collectors.ibdiagnet;

import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.Lines;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parser of {@code ibdiagnet2.log}: one {@link IbdiagnetFinding} per {@code -W-} or {@code
 * -E-} line (docs/formats.md, "ibdiagnet").
 *
 * <p>The log is a sequence of checks, each a dashed line, the check's title ({@code Speed / Width
 * checks}) and tagged lines: {@code -I-} information, {@code -W-} warnings, {@code -E-} errors. A
 * finding names its subject before {@code " - "}: {@code -W- Sfc6a1c030091cf00/Nfc6a1c030091cf00 -
 * Node with Devid:54002(0xd2f2),PSID:MT_0000000579 has FW version ...}, or a link by both ends:
 * {@code -E- Link:
 * S0002c90300688830/N0002c90300688830/P20<-->S0002c90300165e63/N0002c90300165e60/P1 - Unexpected
 * actual link speed 2.5 (enable_speed1="2.5 or 5 or 10", enable_speed2="2.5 or 5 or 10" therefore
 * final speed should be 10)}. The per-check verdicts ({@code ... finished with warnings}) and
 * {@code -W- Note:} lines repeat what the findings say and are not findings. The log lists a
 * handful of findings per check and says {@code All other warnings can be found in
 * ibdiagnet2.db_csv}; the per-check counts are in the closing {@code Summary} table.
 */
public final class IbdiagnetLogParser {
  private static final Pattern TAGGED = Pattern.compile("^-(?<tag>[A-Z])- (?<text>.*)$");
  private static final Pattern SEPARATOR = Pattern.compile("^-{10,}$");
  private static final Pattern TIMESTAMP = Pattern.compile("^Running timestamp:\\s*(?<time>.*)$");
  private static final Pattern LINK =
      Pattern.compile("^Link:\\s*(?<a>.+?)<-->(?<b>.+?) - (?<message>.*)$");
  private static final Pattern SUBJECT = Pattern.compile("^(?<subject>\\S+) - (?<message>.*)$");
  private static final Pattern SPEED_OR_WIDTH =
      Pattern.compile(
          "^Unexpected (?:actual link (?<what>speed|width) |(?<what2>speed|width), actual link"
              + " (?:speed|width) is )(?<actual>[^\\s(]+)(?:\\s*\\((?<detail>.*)\\))?.*$");
  private static final Pattern SHOULD_BE =
      Pattern.compile("final (?:speed|width) should be (?<expected>[^\\s)]+)");
  private static final Pattern VERDICT = Pattern.compile(".* finished with (?:warnings|errors)$");

  public ParseResult<IbdiagnetFinding> parse(String source, String text) {
    ParseResult<IbdiagnetFinding> result = new ParseResult<>();
    Instant runTime = null;
    String section = null;
    boolean titleNext = false;
    boolean tagged = false;
    String[] lines = Lines.of(text);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      if (SEPARATOR.matcher(line).matches()) {
        titleNext = true;
        continue;
      }
      Matcher timestamp = TIMESTAMP.matcher(line);
      if (timestamp.matches()) {
        runTime = runTime(timestamp, source, lineNumber, result);
        continue;
      }
      Matcher tag = TAGGED.matcher(line);
      if (!tag.matches()) {
        if (titleNext) {
          section = line;
        }
        titleNext = false;
        continue; // untagged context: the plugin table, the fabric summary, ...
      }
      titleNext = false;
      tagged = true;
      String body = tag.group("text").strip();
      switch (tag.group("tag")) {
        case "I" -> {}
        case "W" ->
            finding(runTime, lineNumber, IbdiagnetFinding.Severity.WARNING, section, body, result);
        case "E" ->
            finding(runTime, lineNumber, IbdiagnetFinding.Severity.ERROR, section, body, result);
        default ->
            result.skip(source, lineNumber, "unknown ibdiagnet tag -" + tag.group("tag") + "-");
      }
    }
    if (!tagged && !text.isBlank()) {
      result.skip(source, 0, "not an ibdiagnet2.log: no -I-, -W- or -E- line");
    }
    return result;
  }

  private static void finding(
      Instant runTime,
      long lineNumber,
      IbdiagnetFinding.Severity severity,
      String section,
      String body,
      ParseResult<IbdiagnetFinding> result) {
    if (VERDICT.matcher(body).matches() || body.startsWith("Note:")) {
      return;
    }
    IbdiagnetPortName subject = null;
    IbdiagnetPortName peer = null;
    String message = body;
    Matcher link = LINK.matcher(body);
    Matcher named = SUBJECT.matcher(body);
    if (link.matches()) {
      subject = IbdiagnetPortName.of(link.group("a"));
      peer = IbdiagnetPortName.of(link.group("b"));
      message = link.group("message");
    } else if (named.matches()) {
      subject = IbdiagnetPortName.of(named.group("subject"));
      message = named.group("message");
    }
    IbdiagnetFinding.Kind kind = IbdiagnetFinding.Kind.OTHER;
    String actual = null;
    String expected = null;
    Matcher mismatch = SPEED_OR_WIDTH.matcher(message);
    if (mismatch.matches()) {
      kind =
          "speed".equals(mismatch.group("what")) || "speed".equals(mismatch.group("what2"))
              ? IbdiagnetFinding.Kind.LINK_SPEED
              : IbdiagnetFinding.Kind.LINK_WIDTH;
      actual = mismatch.group("actual");
      Matcher shouldBe =
          mismatch.group("detail") == null ? null : SHOULD_BE.matcher(mismatch.group("detail"));
      expected = shouldBe != null && shouldBe.find() ? shouldBe.group("expected") : null;
    } else if (message.contains("_counter") || message.contains("increased during the run")) {
      kind = IbdiagnetFinding.Kind.PORT_COUNTER;
    }
    result.add(
        new IbdiagnetFinding(
            runTime, lineNumber, severity, section, kind, subject, peer, actual, expected, body));
  }

  private static Instant runTime(
      Matcher timestamp, String source, long lineNumber, ParseResult<IbdiagnetFinding> result) {
    Instant time = IbdiagnetTimestamp.parse(timestamp.group("time"));
    if (time == null) {
      result.skip(
          source, lineNumber, "Running timestamp is not a date: " + timestamp.group("time"));
    }
    return time;
  }
}
