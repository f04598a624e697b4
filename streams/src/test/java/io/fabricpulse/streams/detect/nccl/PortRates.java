package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import java.time.Instant;
import java.util.List;

/** Synthetic fabric.rates PORT records: one sysfs port sample with its state and link_downed. */
final class PortRates {

  private PortRates() {}

  static String key(String node, String device) {
    return NcclLines.CLUSTER + "/" + node + "/" + device + "/1";
  }

  /** {@code device} port 1 of {@code node} at T0 + second, InfiniBand, link_downed +delta. */
  static CounterRates port(
      String node, String device, int second, String state, long linkDowned, RateTag tag) {
    return CounterRates.newBuilder()
        .setCluster(NcclLines.CLUSTER)
        .setNode(node)
        .setBootId("boot-1")
        .setSeq(second)
        .setTime(Instant.ofEpochMilli(NcclLines.T0 + second * 1000L))
        .setIntervalMs(1000L)
        .setSource(RateSource.PORT)
        .setDevice(device)
        .setPort(1)
        .setLinkLayer("InfiniBand")
        .setState(state)
        .setPhysState("ACTIVE".equals(state) ? "LinkUp" : "Polling")
        .setRateGbps(400.0)
        .setLinkWidth("4X")
        .setRates(
            List.of(
                CounterRate.newBuilder()
                    .setName("link_downed")
                    .setValue(7 + linkDowned)
                    .setDelta(linkDowned)
                    .setPerSecond((double) linkDowned)
                    .setUnit("events")
                    .setTag(tag)
                    .build()))
        .build();
  }

  static CounterRates active(String node, String device, int second) {
    return port(node, device, second, "ACTIVE", 0, RateTag.normal);
  }
}
