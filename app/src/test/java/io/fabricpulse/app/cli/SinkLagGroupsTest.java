package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.bridges.Bridges;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.streams.FabricTopology;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sink's default --lag-groups are the groups the streams application and bridges use. */
class SinkLagGroupsTest {
  @Test
  void theDefaultLagGroupsAreTheStreamsApplicationAndBothBridges() {
    assertEquals(
        List.of(
            FabricTopology.APPLICATION_ID,
            Bridges.defaultGroupId(RobotType.WECOM),
            Bridges.defaultGroupId(RobotType.DINGTALK)),
        List.of(SinkCommand.Influx.LAG_GROUPS.split(",")));
  }
}
