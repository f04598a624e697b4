package io.fabricpulse.sinks.influx;

import static io.fabricpulse.sinks.influx.Resolution.AGG_10S;
import static io.fabricpulse.sinks.influx.Resolution.FULL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SinkResolutionTest {

  private final SinkResolution defaults = SinkResolution.defaults();

  @Test
  void alertRelevantRatesAreFullResolutionByDefault() {
    for (String field :
        new String[] {
          "pause_ratio_prio3",
          "tx_pause_storm_warning_events_per_s",
          "port_xmit_wait_per_s",
          "symbol_error_delta",
          "port_rcv_errors_per_s",
          "link_downed_delta",
          "link_error_recovery_per_s",
          "link_down_events_phy_delta",
          "VL15_dropped_per_s",
          "excessive_buffer_overrun_errors_delta",
          "rx_prio3_buf_discard_per_s",
          "out_of_buffer_per_s",
          "local_ack_timeout_err_delta",
          "np_ecn_marked_roce_packets_per_s",
          "rp_cnp_handled_per_s",
          "np_cnp_sent_delta",
          "rx_prio3_marked_per_s",
          "rate_gbps",
          "state_active",
          "netdev_mtu"
        }) {
      assertEquals(FULL, defaults.resolve("fabric_port_rates", field), field);
    }
  }

  @Test
  void throughputAndFrameCountsAreAggregatedByDefault() {
    for (String field :
        new String[] {
          "rx_bytes_per_s",
          "tx_bytes_per_s",
          "port_rcv_data_per_s",
          "port_xmit_packets_delta",
          "unicast_rcv_packets_per_s",
          "rx_prio3_pause_per_s",
          "rx_prio3_pause_duration_per_s",
          "rx_write_requests_per_s"
        }) {
      assertEquals(AGG_10S, defaults.resolve("fabric_pfc_rates", field), field);
    }
  }

  @Test
  void overridesComeFirstAndMayNameTheMeasurement() {
    Map<String, Resolution> overrides = new LinkedHashMap<>();
    overrides.put("fabric_pfc_rates.*", FULL);
    overrides.put("port_xmit_wait_*", AGG_10S);
    SinkResolution custom = defaults.withOverrides(overrides);

    assertEquals(FULL, custom.resolve("fabric_pfc_rates", "rx_prio3_pause_per_s"));
    assertEquals(AGG_10S, custom.resolve("fabric_port_rates", "rx_prio3_pause_per_s"));
    assertEquals(AGG_10S, custom.resolve("fabric_port_rates", "port_xmit_wait_per_s"));
    assertEquals(FULL, custom.resolve("fabric_port_rates", "symbol_error_delta"));
  }

  @Test
  void alertsAreAlwaysFullAndAllFullAggregatesNothing() {
    SinkResolution everythingAggregated = SinkResolution.of(Map.of("*", AGG_10S), AGG_10S);
    assertEquals(FULL, everythingAggregated.resolve(InfluxSchema.ALERTS, "value"));
    assertEquals(FULL, SinkResolution.allFull().resolve("fabric_port_rates", "rx_bytes_per_s"));
  }

  @Test
  void globCharactersOtherThanStarAreLiteral() {
    SinkResolution r = SinkResolution.of(Map.of("a.b+c*", FULL), AGG_10S);
    assertEquals(FULL, r.resolve("a", "b+cd"));
    assertEquals(AGG_10S, r.resolve("a", "bbcd"));
    assertThrows(IllegalArgumentException.class, () -> SinkResolution.of(Map.of(" ", FULL), FULL));
  }
}
