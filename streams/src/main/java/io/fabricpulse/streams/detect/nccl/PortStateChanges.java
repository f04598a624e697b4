package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import java.util.Objects;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Thins fabric.rates down to what the NCCL detector needs before it crosses the network: the PORT
 * records whose state, physical state or link layer changed since the port's previous record, or
 * that carry a link_downed increase. Re-keyed to {@code cluster/node} for the repartition. A fabric
 * samples every port every second; ports change state rarely, so this sends little.
 */
final class PortStateChanges implements Processor<String, CounterRates, String, CounterRates> {

  private ProcessorContext<String, CounterRates> context;
  private KeyValueStore<String, String> lastState;

  @Override
  public void init(ProcessorContext<String, CounterRates> context) {
    this.context = context;
    this.lastState = context.getStateStore(NcclTransportDetector.PORT_STATE_STORE);
  }

  @Override
  public void process(Record<String, CounterRates> record) {
    CounterRates r = record.value();
    if (r == null || r.getSource() != RateSource.PORT) {
      return;
    }
    String port = r.getCluster() + "/" + r.getNode() + "/" + NodePorts.portName(r);
    String state = r.getState() + "|" + r.getPhysState() + "|" + r.getLinkLayer();
    boolean changed = !Objects.equals(state, lastState.get(port));
    if (changed) {
      lastState.put(port, state);
    }
    if (changed || NodePorts.linkDownedIncrease(r) > 0) {
      context.forward(record.withKey(r.getCluster() + "/" + r.getNode()));
    }
  }
}
