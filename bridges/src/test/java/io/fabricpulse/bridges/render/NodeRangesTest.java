package io.fabricpulse.bridges.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class NodeRangesTest {
  @Test
  void foldsConsecutiveNumbersOfOnePrefix() {
    assertEquals(
        List.of("gpu001-gpu003", "gpu007", "gpu009-gpu010", "sm01"),
        NodeRanges.fold(
            List.of("gpu010", "gpu002", "gpu001", "sm01", "gpu003", "gpu007", "gpu009")));
    assertEquals(List.of("gpu9", "gpu10"), NodeRanges.fold(List.of("gpu9", "gpu10")));
  }
}
