package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.collectors.testing.Samples;
import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code fabricpulse parse} with the fabric tools' formats, on the real captures. */
class ParseFabricFormatsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String sample(String relative) {
    return Samples.path(relative).toString();
  }

  private static List<JsonNode> lines(CliRun run) {
    return run.stdout()
        .lines()
        .map(
            line -> {
              try {
                return JSON.readTree(line);
              } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
              }
            })
        .toList();
  }

  @Test
  void ibnetdiscoverPortsReportGivesAPortLinkPerLineAndTheUnconnectedPort() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "ibnetdiscover",
            sample("ibnetdiscover/treydock-ibnetdiscover-p-edr-unconnected-4x-unknown.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<JsonNode> links = lines(run);
    assertEquals(9, links.size());
    assertEquals("PortLink", links.get(0).get("type").asText());
    assertEquals("0x7cfe9003009ce5b0", links.get(0).get("remote").get("guid").asText());
    assertEquals("EDR", links.get(0).get("speed").asText());
    JsonNode unconnected = links.get(7);
    assertEquals(37, unconnected.get("local").get("port").asInt());
    assertEquals("SWITCH", unconnected.get("local").get("type").asText());
    assertFalse(unconnected.has("remote"), "a port without link has no remote end");
    assertFalse(unconnected.has("speed"), "4x ???");
    assertEquals(4, unconnected.get("width").asInt());
    assertTrue(run.stderr().contains(": 9 records, 0 malformed"), run.stderr());
  }

  @Test
  void ibnetdiscoverTopologyFileIsRecognised() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "ibnetdiscover",
            sample("ibnetdiscover/ibsim-ibnetdiscover-leaf01-spine01-1x.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<JsonNode> links = lines(run);
    assertEquals(12, links.size());
    JsonNode narrow =
        links.stream().filter(l -> l.get("width").asInt() == 1).findFirst().orElseThrow();
    assertEquals("spine01", narrow.get("local").get("nodeDescription").asText());
    assertEquals("leaf01", narrow.get("remote").get("nodeDescription").asText());
    assertEquals(8, narrow.get("remote").get("port").asInt());
  }

  @Test
  void iblinkinfoGivesTheOneLaneIslWithWhatItCouldBe() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "iblinkinfo",
            sample("iblinkinfo/ibsim-iblinkinfo-leaf01-spine01-1x.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<JsonNode> links = lines(run);
    assertEquals(27, links.size());
    JsonNode narrow =
        links.stream()
            .filter(l -> l.has("width") && l.get("width").asInt() == 1)
            .findFirst()
            .orElseThrow();
    assertEquals(2, narrow.get("local").get("port").asInt());
    assertEquals("leaf01", narrow.get("remote").get("nodeDescription").asText());
    assertEquals(12, narrow.get("possibleWidth").asInt());
    assertEquals("Active", narrow.get("state").asText());
  }

  @Test
  void ibdiagnetLogGivesItsWarningsWithTheRunTime() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "ibdiagnet-log",
            sample("ibdiagnet/gary-minghuili-ibdiagnet2-ndr-quantum2-warnings.log"));

    assertEquals(0, run.exit(), run.stderr());
    List<JsonNode> findings = lines(run);
    assertEquals(17, findings.size());
    JsonNode first = findings.get(0);
    assertEquals("IbdiagnetFinding", first.get("type").asText());
    assertEquals("2025-03-31T23:43:18Z", first.get("runTime").asText());
    assertEquals("WARNING", first.get("severity").asText());
    assertEquals("Discovery", first.get("section").asText());
    assertEquals("0xb0cf0e0300e5b948", first.get("subject").get("nodeGuid").asText());
  }

  @Test
  void ibdiagnetPmGivesCountersByName() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "ibdiagnet-pm",
            sample("ibdiagnet/gary-minghuili-ibdiagnet2-pm-ndr-excerpt.pm"));

    assertEquals(0, run.exit(), run.stderr());
    List<JsonNode> ports = lines(run);
    assertEquals(4, ports.size());
    JsonNode port2 = ports.get(1);
    assertEquals("IbdiagnetPortCounters", port2.get("type").asText());
    assertEquals(180, port2.get("lid").asInt());
    assertEquals(158, port2.get("counters").get("port_rcv_switch_relay_errors").asLong());
    assertEquals(0, port2.get("counters").get("symbol_error_counter").asLong());
    assertEquals("port_looping_errors", port2.get("unavailable").get(0).asText());
  }

  @Test
  void ibstatAndIbstatusGiveOneRecordPerPort() {
    CliRun ibstat =
        CliRun.of(
            "parse",
            "--format",
            "ibstat",
            sample("ibstat/gpud-ibstat-h100-roce-some-down-polling.txt"));
    CliRun ibstatus =
        CliRun.of(
            "parse",
            "--format",
            "ibstatus",
            sample("ibstatus/gpud-ibstatus-a100-8x-hdr-and-ethernet.txt"));

    assertEquals(0, ibstat.exit(), ibstat.stderr());
    assertEquals(12, lines(ibstat).size());
    assertEquals("Polling", lines(ibstat).get(3).get("physicalState").asText());
    assertEquals(0, ibstatus.exit(), ibstatus.stderr());
    JsonNode hdr = lines(ibstatus).get(0);
    assertEquals("IbstatusPort", hdr.get("type").asText());
    assertEquals("HDR", hdr.get("speed").asText());
    assertEquals(13247, hdr.get("baseLid").asInt());
  }

  @Test
  void lldpGivesOneNeighbourPerInterfaceWithTheSwitchPortItsCableEndsOn() {
    CliRun run =
        CliRun.of(
            "parse", "--format", "lldp", sample("lldp/lldpd-1.0.16-host-two-tors-neighbors.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<JsonNode> neighbours = lines(run);
    assertEquals(2, neighbours.size());
    JsonNode first = neighbours.get(0);
    assertEquals("LldpNeighbor", first.get("type").asText());
    assertEquals("ens9f0np0", first.get("localInterface").asText());
    assertEquals("leaf-r01", first.get("systemName").asText());
    assertEquals("1c:34:da:71:0c:0c", first.get("chassisId").asText());
    assertEquals("swp12", first.get("portId").asText());
    assertEquals("leaf-r02", neighbours.get(1).get("systemName").asText());
  }

  @Test
  void malformedLinesAreCountedAndTheWrongFormatIsAUsageError() {
    CliRun partial =
        CliRun.of(
            "parse",
            "--format",
            "ibstat",
            Samples.resourcePath("ibstat/ibstat-ibpanic-synthetic.txt").toString());
    assertEquals(ExitCodes.PARTIAL, partial.exit(), partial.stderr());
    assertEquals(1, lines(partial).size());
    assertTrue(partial.stderr().contains("1 records, 1 malformed"), partial.stderr());
    assertTrue(partial.stderr().contains("ibpanic"), partial.stderr());

    CliRun wrong =
        CliRun.of(
            "parse",
            "--format",
            "iblinkinfo",
            sample("ibstat/gpud-ibstat-h100-roce-some-down-polling.txt"));
    assertEquals(ExitCodes.USAGE, wrong.exit(), wrong.stderr());
    assertEquals("", wrong.stdout());
    assertTrue(wrong.stderr().contains("is --format iblinkinfo right?"), wrong.stderr());
  }
}
