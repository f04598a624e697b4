package io.fabricpulse.streams.detect;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.streams.alerts.AlertSinks;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * What every detector processor shares: its input wiring (one named processor, its stores, its dead
 * letters to fabric.dlq, its alerts to both alert topics), the failure guard around every record
 * and punctuation ({@link DetectorFailures}), and the alerts it forwards.
 *
 * <p>A detector family uses it in two steps:
 *
 * <ol>
 *   <li>its processor extends this class: {@link #open} reads the stores, makes the trackers
 *       ({@link #tracker}) and schedules the stream-time punctuation ({@link #punctuateEvery});
 *       {@link #judge} handles one non-null record (a null one goes to {@link #marker}) and may
 *       throw (the record then becomes a dead letter and the processor goes on); a step that is one
 *       rule's runs in {@link #guard}, so the other rules still judge the record; alerts go out
 *       through {@link #forward(Alert, long)};
 *   <li>its {@code addTo} registers the stores ({@link DetectorInputs#addStore}) and calls {@link
 *       #addAlerting} (alerts only) or {@link #addProcessor} (several kinds of output).
 * </ol>
 *
 * The names it gives are those the families had before it: processor {@code <processor>}, {@code
 * <family>-dead-letters-only}, {@code -dead-letters-cast}, {@code -sink-dlq}, {@code
 * -results-only}, {@code -results-cast}, and {@link AlertSinks}' {@code <family>-to-alerts} and
 * {@code -to-alerts-active}.
 *
 * @param <I> the input value type
 */
public abstract class DetectorProcessor<I> implements Processor<String, I, String, SpecificRecord> {

  /** How often (stream time) the detectors punctuate: resolving, expiring, releasing. */
  public static final Duration PUNCTUATE_EVERY = Duration.ofSeconds(1);

  private final DetectorFailures failures;
  private ProcessorContext<String, SpecificRecord> context;
  private DetectorFailures.Task failed;

  protected DetectorProcessor(DetectorFailures failures) {
    this.failures = failures;
  }

  /**
   * Adds the processor {@code processor} of family {@code family} on {@code input}, connected to
   * {@code stores}, sends its dead letters to fabric.dlq and its alerts to fabric.alerts and
   * fabric.alerts.active.
   *
   * @param make the processor of one task, given the family's failure handling
   */
  public static <I> void addAlerting(
      DetectorInputs inputs,
      String family,
      String processor,
      KStream<String, I> input,
      Function<DetectorFailures, DetectorProcessor<I>> make,
      String... stores) {
    KStream<String, Alert> alerts = alertsOf(inputs, family, processor, input, make, stores);
    AlertSinks.addTo(alerts, family, inputs.topics(), inputs.serdes().alert());
  }

  /**
   * Like {@link #addAlerting} but returns the alerts instead of sending them, for a family that
   * merges or re-keys them first.
   */
  public static <I> KStream<String, Alert> alertsOf(
      DetectorInputs inputs,
      String family,
      String processor,
      KStream<String, I> input,
      Function<DetectorFailures, DetectorProcessor<I>> make,
      String... stores) {
    DetectorFailures failures = DetectorFailures.of(inputs, family, processor);
    return failures.routeDeadLetters(
        process(failures, processor, input, make, stores), Alert.class);
  }

  /**
   * Adds the processor and sends its dead letters to fabric.dlq ({@link
   * DetectorFailures#sinkDeadLetters}); returns its whole output (dead letters included), for a
   * family whose processor emits more than alerts.
   */
  public static <I> KStream<String, SpecificRecord> addProcessor(
      DetectorInputs inputs,
      String family,
      String processor,
      KStream<String, I> input,
      Function<DetectorFailures, DetectorProcessor<I>> make,
      String... stores) {
    DetectorFailures failures = DetectorFailures.of(inputs, family, processor);
    KStream<String, SpecificRecord> out = process(failures, processor, input, make, stores);
    failures.sinkDeadLetters(out);
    return out;
  }

  private static <I> KStream<String, SpecificRecord> process(
      DetectorFailures failures,
      String processor,
      KStream<String, I> input,
      Function<DetectorFailures, DetectorProcessor<I>> make,
      String... stores) {
    return input.process(() -> make.apply(failures), Named.as(processor), stores);
  }

  @Override
  public final void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    this.failed = failures.open(context);
    open();
  }

  /** Reads the stores, makes the trackers, schedules the punctuation; {@link #context} is set. */
  protected abstract void open();

  /**
   * Judges one record ({@link #judge}, or {@link #marker} for a null value); when that throws, the
   * record becomes a dead letter (no rule named) and the next follows.
   */
  @Override
  public final void process(Record<String, I> record) {
    if (record.value() == null) {
      failed.guard(record, null, () -> marker(record));
    } else {
      failed.guard(record, null, () -> judge(record));
    }
  }

  /** Judges one record (never null-valued). */
  protected abstract void judge(Record<String, I> record);

  /**
   * A record without a value: a tombstone, which carries nothing to judge, unless the family sends
   * itself progress markers that way (their headers say so). Ignored unless overridden.
   */
  protected void marker(Record<String, I> record) {}

  /**
   * Runs the step of rule {@code rule} on {@code record}; when it throws, a dead letter naming the
   * rule goes out and false is returned, so the caller goes on with the next rule.
   */
  protected final boolean guard(Record<String, ?> record, String rule, Runnable step) {
    return failed.guard(record, rule, step);
  }

  /** Schedules {@code punctuator} every {@code interval} of stream time, guarded likewise. */
  protected final void punctuateEvery(Duration interval, Punctuator punctuator) {
    failed.schedule(interval, punctuator);
  }

  /** An {@link AlertTracker} for {@code rule} on the tracker store {@code store}. */
  protected final AlertTracker tracker(Rule rule, FiringPolicy policy, String store) {
    return new AlertTracker(rule, policy, context.getStateStore(store));
  }

  protected final ProcessorContext<String, SpecificRecord> context() {
    return context;
  }

  /** Forwards {@code alert}, keyed by its alert_id, at {@code timestamp}. */
  protected final void forward(Alert alert, long timestamp) {
    context.forward(new Record<>(alert.getAlertId(), alert, timestamp));
  }

  @Override
  public final void close() {
    failed.close();
  }
}
