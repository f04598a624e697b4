package io.fabricpulse.streams.detect.silence;

import io.fabricpulse.avro.CounterRates;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Turns fabric.rates into node heartbeats for the repartition by cluster: one per node, source and
 * sample time seen by this task (a node's 8 ports sampled at one instant are one heartbeat), with
 * the counters stripped and the key set to the cluster.
 *
 * <p>The last-forwarded map is a cache, not state: after a restart the next sample of each node is
 * forwarded again, which the detector ignores when it is not newer than what it has.
 */
final class HeartbeatSampler implements Processor<String, CounterRates, String, CounterRates> {

  private final Map<String, Long> forwarded = new HashMap<>();
  private ProcessorContext<String, CounterRates> context;

  @Override
  public void init(ProcessorContext<String, CounterRates> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, CounterRates> record) {
    CounterRates r = record.value();
    if (r == null) {
      return;
    }
    String key = r.getCluster() + "/" + r.getNode() + "/" + r.getSource();
    long time = r.getTime().toEpochMilli();
    Long last = forwarded.get(key);
    if (last != null && time <= last) {
      return;
    }
    forwarded.put(key, time);
    CounterRates beat = CounterRates.newBuilder(r).setRates(List.of()).build();
    context.forward(record.withKey(r.getCluster()).withValue(beat));
  }
}
