package io.fabricpulse.streams.detect.link;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.Lineage;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Before the repartition by node: keeps only the counters the link detectors read (a port sample
 * carries ~45), and sets lineage headers naming this fabric.rates record unless the rate stage's
 * headers already name the raw sample, so alerts point at a sample rather than at the internal
 * repartition topic.
 */
final class LinkRatesSlimmer implements FixedKeyProcessor<String, CounterRates, CounterRates> {

  private FixedKeyProcessorContext<String, CounterRates> context;

  @Override
  public void init(FixedKeyProcessorContext<String, CounterRates> context) {
    this.context = context;
  }

  @Override
  public void process(FixedKeyRecord<String, CounterRates> record) {
    Headers headers = record.headers();
    if (Lineage.topic(headers) == null && context.recordMetadata().isPresent()) {
      headers = Lineage.of(headers, context.recordMetadata().get());
    }
    context.forward(record.withValue(slim(record.value())).withHeaders(headers));
  }

  static CounterRates slim(CounterRates rates) {
    List<CounterRate> used =
        rates.getRates().stream()
            .filter(r -> LinkSample.USED_COUNTERS.contains(r.getName()))
            .toList();
    return CounterRates.newBuilder(rates).setRates(used).build();
  }
}
