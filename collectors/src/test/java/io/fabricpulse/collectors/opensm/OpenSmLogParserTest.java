package io.fabricpulse.collectors.opensm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.testing.Samples;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OpenSmLogParserTest {
  private static final NodeIdentity SM_NODE = new NodeIdentity("c1", "sm01", "boot-1");
  private static final String REAL_LOG = "opensm/linux-rdma-opensm-3.3.21-standby-node-log1.txt";

  private final OpenSmLogParser parser = new OpenSmLogParser(ZoneOffset.UTC);

  @Test
  void realStandbyLogYieldsStateChangesAndMadErrors() {
    // The mail with this log was sent in March 2019; read it as of Mar 12 2019.
    SampleContext context = SampleContext.of(SM_NODE, Instant.parse("2019-03-12T12:00:00Z"));
    ParseResult<SmSweep> result = parser.parse(Samples.read(REAL_LOG), context, REAL_LOG);
    List<SmSweep> records = result.records();

    assertEquals(0, result.malformed().size());
    // 380 lines: 7 blank, 2 tab-indented MAD dump continuations, 7 stdout echoes without header.
    assertEquals(16, parser.ignoredLines());

    List<SmSweep> states = ofKind(records, SmEventKind.STATE_CHANGE);
    assertEquals(
        List.of("DISCOVERING", "STANDBY", "DISCOVERING", "STANDBY", "DISCOVERING", "STANDBY"),
        states.stream().map(SmSweep::getSmState).toList());
    assertEquals(Instant.parse("2019-03-10T06:06:02.511Z"), states.get(0).getTime());
    assertEquals(Instant.parse("2019-03-10T06:06:06.480Z"), states.get(1).getTime());
    assertEquals(Instant.parse("2019-03-10T22:09:17.901Z"), states.get(2).getTime());
    assertEquals(Instant.parse("2019-03-11T19:42:07.943Z"), states.get(5).getTime());
    assertEquals("Entering DISCOVERING state", states.get(0).getMessage());
    assertEquals(SmSource.OPENSM_LOG, states.get(0).getSource());

    Map<String, Long> madErrorsByCode =
        ofKind(records, SmEventKind.MAD_ERROR).stream()
            .collect(Collectors.groupingBy(SmSweep::getErrorCode, Collectors.counting()));
    assertEquals(
        Map.of("3E03", 171L, "5430", 171L, "5411", 2L, "3113", 2L, "3120", 2L), madErrorsByCode);
    assertEquals(0, ofKind(records, SmEventKind.ERROR).size());
    assertEquals(6 + 348, records.size());

    SmSweep firstSendFailure =
        records.stream().filter(r -> "3E03".equals(r.getErrorCode())).findFirst().orElseThrow();
    assertEquals(Instant.parse("2019-03-10T21:28:55.694Z"), firstSendFailure.getTime());
    assertEquals(
        "vl15_send_mad: ERR 3E03: MAD send failed (IB_UNKNOWN_ERROR)",
        firstSendFailure.getMessage());
    assertEquals(
        "Mar 10 21:28:55 694956 [850BE700] 0x01 -> vl15_send_mad: ERR 3E03: MAD send failed"
            + " (IB_UNKNOWN_ERROR)",
        firstSendFailure.getRawLine());
    SmSweep last = records.get(records.size() - 1);
    assertEquals(Instant.parse("2019-03-12T03:14:01.151Z"), last.getTime());

    // One sequence for the whole source, in line order.
    for (int i = 0; i < records.size(); i++) {
      assertEquals(i, records.get(i).getSeq());
    }
  }

  @Test
  void masterSweepTrapAndPerfMgrLines() {
    SampleContext context = SampleContext.of(SM_NODE, Instant.parse("2025-06-20T00:00:00Z"));
    String name = "opensm-master-perfmgr-synthetic.log";
    ParseResult<SmSweep> result = parser.parse(Samples.resource("/opensm/" + name), context, name);
    List<SmSweep> records = result.records();
    Map<SmEventKind, List<SmSweep>> byKind =
        records.stream().collect(Collectors.groupingBy(SmSweep::getEvent));

    SmSweep heavy = byKind.get(SmEventKind.HEAVY_SWEEP).get(0);
    assertEquals(Instant.parse("2025-06-18T04:34:30.730Z"), heavy.getTime());
    assertEquals("MASTER", byKind.get(SmEventKind.STATE_CHANGE).get(0).getSmState());
    assertEquals(
        Instant.parse("2025-06-18T04:34:30.811Z"),
        byKind.get(SmEventKind.SUBNET_UP).get(0).getTime());

    List<SmSweep> forced = byKind.get(SmEventKind.FORCED_HEAVY_SWEEP);
    assertEquals(2, forced.size());
    assertEquals(128, forced.get(0).getTrap());
    assertNull(forced.get(1).getTrap());
    assertEquals(
        "sm_state_mgr_process: Forcing heavy sweep. Received signal OSM_SM_SIGNAL_HANDOVER",
        forced.get(1).getMessage());

    SmSweep clear = byKind.get(SmEventKind.PERFMGR_COUNTER_CLEAR).get(0);
    assertEquals("sw-leaf-03", clear.getPortNode());
    assertEquals("0x7cfe900300a5b2c0", clear.getPortGuid());
    assertEquals(17, clear.getPortNum());

    SmSweep oob = byKind.get(SmEventKind.PERFMGR_OOB_CLEAR).get(0);
    assertEquals("540A", oob.getErrorCode());
    assertEquals("gpu017 HCA-1", oob.getPortNode());
    assertEquals("0x0c42a10300b1c2d0", oob.getPortGuid());
    assertEquals(1, oob.getPortNum());

    Map<String, SmSweep> counterErrors =
        byKind.get(SmEventKind.PERFMGR_COUNTER_ERROR).stream()
            .collect(Collectors.toMap(SmSweep::getErrorCode, Function.identity()));
    SmSweep linkDowned = counterErrors.get("5433");
    assertEquals("LinkDownedCounter", linkDowned.getCounterName());
    assertEquals(3L, linkDowned.getCounterDelta());
    assertEquals("sw-leaf-03", linkDowned.getPortNode());
    assertEquals("0x7cfe900300a5b2c0", linkDowned.getPortGuid());
    assertEquals(17, linkDowned.getPortNum());
    assertEquals("gpu017 HCA-1", linkDowned.getRemoteNode());
    assertEquals("0x0c42a10300b1c2d0", linkDowned.getRemoteGuid());
    assertEquals(1, linkDowned.getRemotePort());
    SmSweep xmitWait = counterErrors.get("543D");
    assertEquals("XmitWait", xmitWait.getCounterName());
    assertEquals(123456789L, xmitWait.getCounterDelta());
    assertEquals("sw-spine-01", xmitWait.getPortNode());
    assertEquals(5, xmitWait.getPortNum());
    assertNull(xmitWait.getRemoteNode());
    assertNull(xmitWait.getRemotePort());

    assertEquals(1, byKind.get(SmEventKind.SM_PORT_DOWN).size());
    SmSweep other = byKind.get(SmEventKind.ERROR).get(0);
    assertEquals("0303", other.getErrorCode());

    // The Dec 31 line, read in June 2025, is from Dec 31 2024.
    // It is a header line without an event ("do_sweep:"), so it yields no record; the asterisk
    // box and blank lines around it are ignored. The torn line and Feb 30 are malformed.
    assertEquals(11, records.size());
    assertEquals(2, result.malformed().size());
    assertEquals(21, result.malformed().get(0).line());
    assertEquals(22, result.malformed().get(1).line());
    assertEquals(7, parser.ignoredLines());
  }

  @Test
  void yearRollsBackAcrossNewYear() {
    SampleContext january = SampleContext.of(SM_NODE, Instant.parse("2025-01-02T00:10:00Z"));
    String line = "Dec 31 23:59:58 100000 [EFC006C0] 0x80 -> Entering MASTER state";
    SmSweep record = parser.parse(line, january, "x").records().get(0);
    assertEquals(Instant.parse("2024-12-31T23:59:58.100Z"), record.getTime());

    SampleContext december = SampleContext.of(SM_NODE, Instant.parse("2024-12-31T23:59:59Z"));
    String newYear = "Jan 01 00:00:01 000000 [EFC006C0] 0x80 -> Entering STANDBY state";
    assertEquals(
        Instant.parse("2025-01-01T00:00:01Z"),
        parser.parse(newYear, december, "x").records().get(0).getTime());
  }

  @Test
  void headerTimeIsLocalTimeOfTheSmHost() {
    OpenSmLogParser shanghai = new OpenSmLogParser(java.time.ZoneId.of("Asia/Shanghai"));
    SampleContext context = SampleContext.of(SM_NODE, Instant.parse("2025-06-20T00:00:00Z"));
    SmSweep record =
        shanghai
            .parse("Jun 18 08:00:00 000000 [1] 0x80 -> Entering MASTER state", context, "x")
            .records()
            .get(0);
    assertEquals(Instant.parse("2025-06-18T00:00:00Z"), record.getTime());
  }

  private static List<SmSweep> ofKind(List<SmSweep> records, SmEventKind kind) {
    return records.stream().filter(r -> r.getEvent() == kind).toList();
  }
}
