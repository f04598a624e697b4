package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Thins the RoCE port samples of fabric.rates to what the per-cluster MTU census needs, before the
 * repartition by cluster: a port's first sample, every MTU change, and a refresh every {@link
 * #REFRESH_MS} of event time (so a port that stays reported is not expired). Values are stripped of
 * their counters; the key becomes the cluster.
 *
 * <p>The last-forwarded map is a cache, not state: after a restart it starts empty and the next
 * sample of each port is forwarded again, which the census treats as the refresh it is.
 */
final class MtuSampler implements Processor<String, CounterRates, String, CounterRates> {

  static final long REFRESH_MS = 10_000;

  private record Forwarded(int mtu, long at) {}

  private final Map<String, Forwarded> forwarded = new HashMap<>();
  private ProcessorContext<String, CounterRates> context;

  @Override
  public void init(ProcessorContext<String, CounterRates> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, CounterRates> record) {
    CounterRates r = record.value();
    if (r == null
        || r.getSource() != RateSource.PORT
        || !RoceSample.isRoce(r)
        || r.getNetdevMtu() == null
        || r.getNetdev() == null) {
      return;
    }
    String port = r.getCluster() + "/" + r.getNode() + "/" + r.getNetdev();
    long time = r.getTime().toEpochMilli();
    Forwarded last = forwarded.get(port);
    if (last != null && last.mtu() == r.getNetdevMtu() && time - last.at() < REFRESH_MS) {
      return;
    }
    forwarded.put(port, new Forwarded(r.getNetdevMtu(), time));
    CounterRates slim = CounterRates.newBuilder(r).setRates(List.of()).build();
    context.forward(record.withKey(r.getCluster()).withValue(slim));
  }
}
