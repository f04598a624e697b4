package io.fabricpulse.collectors.opensm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.testing.Samples;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SminfoParserTest {
  private static final Instant NOW = Instant.parse("2025-03-01T10:00:00Z");
  private final SminfoParser parser = new SminfoParser();
  private final SampleContext context =
      SampleContext.of(new NodeIdentity("c1", "gpu001", "boot-1"), NOW);

  @Test
  void simulatedMasterAnswer() {
    String text = Samples.read("opensm/ibsim-lab-sminfo-master-simulated.txt");
    List<SmSweep> records = parser.parse(text, context).records();

    assertEquals(1, records.size());
    SmSweep poll = records.get(0);
    assertEquals(SmSource.SMINFO, poll.getSource());
    assertEquals(SmEventKind.SMINFO_POLL, poll.getEvent());
    assertEquals(1, poll.getSmLid());
    assertEquals("0x2c90000000011", poll.getSmGuid());
    assertEquals(186L, poll.getActivityCount());
    assertEquals(0, poll.getPriority());
    assertEquals("MASTER", poll.getSmState());
    assertEquals(NOW, poll.getTime());
    assertEquals("c1", poll.getCluster());
    assertEquals(
        "sminfo: sm lid 1 sm guid 0x2c90000000011, activity count 186 priority 0 state 3"
            + " SMINFO_MASTER",
        poll.getRawLine());
  }

  @Test
  void domainExampleStandbyAndUnsignedActivity() {
    String line =
        "sminfo: sm lid 37 sm guid 0x7cfe90030016aef1, activity count 4294967295 priority 14"
            + " state 2 SMINFO_STANDBY";
    SmSweep poll = parser.parse(line, context).records().get(0);
    assertEquals(37, poll.getSmLid());
    assertEquals("0x7cfe90030016aef1", poll.getSmGuid());
    assertEquals(4294967295L, poll.getActivityCount());
    assertEquals(14, poll.getPriority());
    assertEquals("STANDBY", poll.getSmState());
  }

  @Test
  void failedRunIsPublishedAsFailure() {
    String name = "/opensm/sminfo-iberror-synthetic.txt";
    SminfoOutput output = new SminfoOutput(255, Samples.resource(name), "");
    List<SmSweep> records = parser.parse(output, context).records();

    assertEquals(1, records.size());
    SmSweep failed = records.get(0);
    assertEquals(SmEventKind.SMINFO_FAILED, failed.getEvent());
    assertEquals("sminfo: iberror: failed: query", failed.getMessage());
    assertNull(failed.getSmLid());
    assertNull(failed.getSmState());
  }

  @Test
  void silentFailureNamesTheExitCode() {
    SmSweep failed = parser.parse(new SminfoOutput(1, "", ""), context).records().get(0);
    assertEquals(SmEventKind.SMINFO_FAILED, failed.getEvent());
    assertEquals("sminfo exited with code 1 and printed nothing", failed.getMessage());
  }

  @Test
  void exitZeroWithoutAnswerIsAFailure() {
    SmSweep failed = parser.parse("ibwarn: [12] main: no SM found", context).records().get(0);
    assertEquals(SmEventKind.SMINFO_FAILED, failed.getEvent());
    assertEquals("ibwarn: [12] main: no SM found", failed.getMessage());
  }
}
