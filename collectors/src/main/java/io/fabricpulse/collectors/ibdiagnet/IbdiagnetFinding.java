package io.fabricpulse.collectors.ibdiagnet;

import java.time.Instant;

/**
 * One warning ({@code -W-}) or error ({@code -E-}) line of an {@code ibdiagnet2.log}.
 *
 * @param runTime the run's {@code Running timestamp}; null when the log has none
 * @param line the 1-based line in the log
 * @param severity warning or error
 * @param section the check the line belongs to, e.g. {@code Speed / Width checks}
 * @param kind what the finding is about
 * @param subject the port or node the line names before its {@code " - "}; for a link, the first
 *     end; null when the line names none
 * @param peer the other end of a {@code Link: A<-->B} line; null otherwise
 * @param actual for a speed or width finding, the active value ({@code 2.5}, {@code 1x})
 * @param expected for a speed or width finding, what ibdiagnet says it should be ({@code 10}); null
 *     when the line does not say
 * @param text the line as the tool printed it, without the severity tag: the evidence
 */
public record IbdiagnetFinding(
    Instant runTime,
    long line,
    Severity severity,
    String section,
    Kind kind,
    IbdiagnetPortName subject,
    IbdiagnetPortName peer,
    String actual,
    String expected,
    String text) {

  public enum Severity {
    WARNING,
    ERROR
  }

  public enum Kind {
    /** {@code Unexpected actual link speed ...}: the link runs below what both ends enable. */
    LINK_SPEED,
    /** {@code Unexpected actual link width ...}: fewer lanes than both ends enable. */
    LINK_WIDTH,
    /** A port counter check ({@code "symbol_error_counter" increased during the run ...}). */
    PORT_COUNTER,
    /** Anything else: firmware, duplicate descriptions, MAD timeouts, ... */
    OTHER
  }
}
