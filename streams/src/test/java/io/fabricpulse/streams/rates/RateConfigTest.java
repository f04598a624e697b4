package io.fabricpulse.streams.rates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabricpulse.avro.RateSource;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RateConfigTest {

  @Test
  void defaultsReadPortPfcAndEcnAndBelieveWrapsBelowHalfTheRange() {
    RateConfig config = RateConfig.defaults();
    assertEquals(
        Set.of(RateSource.PORT, RateSource.PFC, RateSource.ECN, RateSource.PERFQUERY),
        config.sources());
    assertEquals(0.5, config.wrapPlausibleFraction());
  }

  @Test
  void refusesWhatTheStageCannotRun() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new RateConfig(EnumSet.noneOf(RateSource.class), 0.5));
    assertThrows(
        IllegalArgumentException.class, () -> new RateConfig(EnumSet.of(RateSource.PORT), 0));
  }
}
