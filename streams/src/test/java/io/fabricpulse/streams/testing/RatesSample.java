package io.fabricpulse.streams.testing;

import io.fabricpulse.avro.CounterRates;

/** A fabric.rates record under construction in a test: its key, event time and value. */
public interface RatesSample {

  /** The record key, {@code cluster/node} as the rate stage writes it. */
  String key();

  /** The event time (epoch ms), the record timestamp it is piped with. */
  long time();

  CounterRates build();
}
