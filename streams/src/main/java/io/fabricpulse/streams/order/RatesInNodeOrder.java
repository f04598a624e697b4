package io.fabricpulse.streams.order;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import java.util.List;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;

/**
 * fabric.rates with each node's records in event-time order across its sources, for the per-node
 * detectors whose condition spans sources (a RoCE port's sysfs, PFC and ECN samples; a port's sysfs
 * and ethtool link-down counters).
 *
 * <p>Why: the rate task of a partition interleaves the raw port-counters, pfc and ecn topics as
 * their fetches come in, and a node's collector tasks drift apart under load, so fabric.rates holds
 * one node's sources seconds apart in no fixed order. A detector judging a port on whichever sample
 * came last would then see, say, a clean sysfs sample from 07:02:38 before the ethtool sample from
 * 07:02:35 that still shows drops, resolve the alert, and page again: the alerts would depend on
 * the machine's load. In event-time order, with ties broken by source and port, the same history
 * gives the same alerts however it arrived.
 *
 * <pre>
 * source-fabric-rates -> rates-in-node-order [rates-order-buffer, rates-order-clocks] -> detectors
 * </pre>
 *
 * Cost: a record waits until the node's slowest source has reported its time (one sampling interval
 * when sources share it). A source silent for 5 min or three of its intervals no longer holds the
 * node back; a node that stops reporting altogether keeps its last records (those after its slowest
 * source's last sample) until it reports again.
 */
public final class RatesInNodeOrder {

  public static final String PROCESSOR = "rates-in-node-order";

  /** Records waiting for their node's watermark, key {@link RatesOrderBuffer#key}. */
  public static final String BUFFER_STORE = "rates-order-buffer";

  /** {@link NodeSourceClocks} per node, key {@code cluster/node}. */
  public static final String CLOCK_STORE = "rates-order-clocks";

  private RatesInNodeOrder() {}

  /**
   * Adds the ordering stage over {@code inputs.ratesRecords()} (whole node records, split into
   * ports on release); call once per topology.
   */
  public static KStream<String, CounterRates> addTo(DetectorInputs inputs) {
    DetectorSerdes serdes = inputs.serdes();
    inputs.addStore(
        BUFFER_STORE,
        new BufferedRatesSerde(
            serdes.value(NodeRates.class),
            serdes.rates(),
            serdes.oneOf(List.of(NodeRates.class, CounterRates.class))));
    inputs.addStore(CLOCK_STORE, new NodeSourceClocksSerde());
    return inputs
        .ratesRecords()
        .process(NodeOrderProcessor::new, Named.as(PROCESSOR), BUFFER_STORE, CLOCK_STORE);
  }
}
