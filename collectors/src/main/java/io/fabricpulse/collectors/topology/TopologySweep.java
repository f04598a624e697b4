package io.fabricpulse.collectors.topology;

import io.fabricpulse.avro.TopologySource;
import java.time.Instant;

/**
 * Which sweep a topology snapshot comes from.
 *
 * @param cluster cluster name from the collector config
 * @param observedBy host name of the node that ran the sweep
 * @param source the tool whose output was parsed
 * @param sweepSeq the observing collector's sweep number
 * @param time when the sweep started (event time of every record it produces)
 */
public record TopologySweep(
    String cluster, String observedBy, TopologySource source, long sweepSeq, Instant time) {}
