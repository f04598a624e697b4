package io.fabricpulse.collectors.ibdiagnet;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class IbdiagnetPmParserTest {
  private static final String REAL = "ibdiagnet/gary-minghuili-ibdiagnet2-pm-ndr-excerpt.pm";
  private final IbdiagnetPmParser parser = new IbdiagnetPmParser();

  @Test
  void switchAndHcaPortSectionsOfARealRun() {
    ParseResult<IbdiagnetPortCounters> result = parser.parse(REAL, read(REAL));

    assertEquals(List.of(), result.malformed());
    assertEquals(4, result.records().size());
    IbdiagnetPortCounters port1 = result.records().get(0);
    assertEquals("0xb0cf0e0300d33fc0", port1.guid());
    assertEquals(180, port1.lid(), "Lid=0x00b4");
    assertEquals(1, port1.port());
    assertEquals(54002, port1.deviceId());
    assertEquals("ib-switch-sequoia/U1/P1/1/1", port1.portName());
    assertEquals(Instant.parse("2025-03-31T23:43:18Z"), port1.runTime());
    assertEquals(16L, port1.line());
    assertEquals(0L, port1.counters().get("symbol_error_counter"));
    assertEquals(0L, port1.counters().get("link_down_counter"));
    assertEquals(0L, port1.counters().get("link_error_recovery_counter"));
    assertEquals(4294967295L, port1.counters().get("port_xmit_data"), "32-bit, saturated");
    assertEquals(299195507523L, port1.counters().get("port_xmit_data_extended"));
    assertEquals(9463628588L, port1.counters().get("port_xmit_wait_extended"));
    assertEquals(List.of("port_looping_errors"), port1.unavailable());
    assertEquals(50, port1.counters().size());

    IbdiagnetPortCounters port2 = result.records().get(1);
    assertEquals(158L, port2.counters().get("port_rcv_switch_relay_errors"), "0x0000009e");
    assertEquals(158L, port2.counters().get("port_dlid_mapping_errors"));

    IbdiagnetPortCounters hca = result.records().get(2);
    assertEquals("is-north-7-compute-32/mlx5_3/B66D0F0/0/0/1", hca.portName());
    assertEquals(37, hca.lid());
    assertEquals(4129, hca.deviceId());
    assertEquals(
        List.of(
            "retransmission_per_sec",
            "max_retransmission_rate",
            "port_vl_mapping_errors",
            "port_looping_errors",
            "port_sw_lifetime_limit_discards",
            "port_sw_hoq_lifetime_limit_discards"),
        hca.unavailable());
    assertEquals(54154295595L, hca.counters().get("port_xmit_pkts_extended"));
  }

  @Test
  void aDirtyLinkWithLinkDownedAndSymbolErrors() {
    ParseResult<IbdiagnetPortCounters> result =
        parser.parse("dirty", resource("ibdiagnet/ibdiagnet2-pm-dirty-link-synthetic.pm"));

    assertEquals(List.of(4L, 12L, 18L), result.malformed().stream().map(Malformed::line).toList());
    assertTrue(result.malformed().get(2).reason().contains("without counters"));
    assertEquals(1, result.records().size());
    IbdiagnetPortCounters port = result.records().get(0);
    assertEquals(12, port.port());
    assertEquals(48L, port.counters().get("link_down_counter"));
    assertEquals(255L, port.counters().get("link_error_recovery_counter"));
    assertEquals(65535L, port.counters().get("symbol_error_counter"));
    assertEquals(0x12345L, port.counters().get("symbol_error_counter_extended"));
    assertEquals(300L, port.counters().get("port_rcv_errors"));
    assertEquals(Instant.parse("2025-04-02T08:15:01Z"), port.runTime());
  }
}
