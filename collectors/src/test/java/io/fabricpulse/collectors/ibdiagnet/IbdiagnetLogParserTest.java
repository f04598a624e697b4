package io.fabricpulse.collectors.ibdiagnet;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.ibdiagnet.IbdiagnetFinding.Kind;
import io.fabricpulse.collectors.ibdiagnet.IbdiagnetFinding.Severity;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class IbdiagnetLogParserTest {
  private static final String REAL =
      "ibdiagnet/gary-minghuili-ibdiagnet2-ndr-quantum2-warnings.log";
  private final IbdiagnetLogParser parser = new IbdiagnetLogParser();

  @Test
  void everyWarningOfARealRunWithItsCheckAndSubject() {
    ParseResult<IbdiagnetFinding> result = parser.parse(REAL, read(REAL));

    assertEquals(List.of(), result.malformed());
    // 5 MAD timeouts, 5 duplicated descriptions, 2 missing hierarchy infos, 5 firmware versions;
    // the "... finished with warnings" verdicts and the "Note:" line are not findings.
    assertEquals(17, result.records().size());
    assertTrue(result.records().stream().allMatch(f -> f.severity() == Severity.WARNING));
    assertTrue(result.records().stream().allMatch(f -> f.kind() == Kind.OTHER));
    Map<String, Long> bySection =
        result.records().stream()
            .collect(Collectors.groupingBy(IbdiagnetFinding::section, Collectors.counting()));
    assertEquals(Map.of("Discovery", 12L, "Nodes Information", 5L), bySection);

    IbdiagnetFinding first = result.records().get(0);
    assertEquals(34L, first.line());
    assertEquals(Instant.parse("2025-03-31T23:43:18Z"), first.runTime());
    assertEquals("0xb0cf0e0300e5b948", first.subject().nodeGuid());
    assertNull(first.subject().portLabel());
    assertEquals(
        "Sb0cf0e0300e5b940/Nb0cf0e0300e5b948 - No response for MAD VSGeneralInfo, status = 4",
        first.text());

    IbdiagnetFinding firmware = result.records().get(12);
    assertEquals(126L, firmware.line());
    assertEquals("0xfc6a1c030091cf00", firmware.subject().nodeGuid());
    assertTrue(
        firmware
            .text()
            .endsWith(
                "has FW version 31.2012.1024 while the latest FW version"
                    + " for the same Devid/PSID on this fabric is 31.2012.1068"));
    IbdiagnetFinding hierarchy = result.records().get(10);
    assertEquals("0xfc6a1c030091cf00", hierarchy.subject().nodeGuid(), "S../N../N/A");
    assertEquals("ib-switch-sequoia/U1/N/A", result.records().get(11).subject().raw());
  }

  @Test
  void speedAndWidthMismatchesNameBothEndsOfTheLink() {
    ParseResult<IbdiagnetFinding> result =
        parser.parse(
            "mismatch", resource("ibdiagnet/ibdiagnet2-speed-width-mismatch-synthetic.log"));

    assertEquals(List.of(21L), result.malformed().stream().map(Malformed::line).toList());
    assertEquals(4, result.records().size());
    Map<Kind, IbdiagnetFinding> byKind =
        result.records().stream()
            .collect(Collectors.toMap(IbdiagnetFinding::kind, Function.identity(), (a, b) -> a));

    IbdiagnetFinding speed = byKind.get(Kind.LINK_SPEED);
    assertEquals(Severity.ERROR, speed.severity());
    assertEquals("Speed / Width checks", speed.section());
    assertEquals(
        new IbdiagnetPortName(
            "S0002c90300688830/N0002c90300688830/P20", "0x0002c90300688830", "20"),
        speed.subject());
    assertEquals(
        new IbdiagnetPortName("S0002c90300165e63/N0002c90300165e60/P1", "0x0002c90300165e60", "1"),
        speed.peer());
    assertEquals("2.5", speed.actual());
    assertEquals("10", speed.expected());
    assertEquals(Instant.parse("2025-04-02T08:15:00Z"), speed.runTime(), "CEST +0200");

    IbdiagnetFinding width = byKind.get(Kind.LINK_WIDTH);
    assertEquals(Severity.WARNING, width.severity());
    assertEquals("0xb0cf0e0300d33fc0", width.subject().nodeGuid());
    assertEquals("7", width.subject().portLabel());
    assertEquals(new IbdiagnetPortName("gpu007/mlx5_3/P1", null, "1"), width.peer());
    assertEquals("2x", width.actual());
    assertNull(width.expected(), "the width check against --lw does not say");
    assertTrue(width.text().startsWith("Link: Sb0cf0e0300d33fc0/Nb0cf0e0300d33fc0/P7<-->"));

    IbdiagnetFinding manualForm = result.records().get(2);
    assertEquals(Kind.LINK_SPEED, manualForm.kind());
    assertEquals("25", manualForm.actual());
    assertNull(manualForm.expected());
    assertEquals(new IbdiagnetPortName("switch-004/U1/P20", null, "20"), manualForm.peer());

    IbdiagnetFinding counter = byKind.get(Kind.PORT_COUNTER);
    assertEquals("Port Counters", counter.section());
    assertEquals("12", counter.subject().portLabel());
    assertNull(counter.peer());
  }

  @Test
  void textWithoutTaggedLinesIsNoIbdiagnetLog() {
    ParseResult<IbdiagnetFinding> result = parser.parse("x", "hello\n\u0000\u0001\nworld\n");

    assertEquals(List.of(), result.records());
    assertEquals(1, result.malformed().size());
    assertEquals(0L, result.malformed().get(0).line());
  }
}
