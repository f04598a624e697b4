# The fabricpulse image: the runnable jar on a Java 17 JRE, running as an unprivileged user.
#   docker build -t fabricpulse .
#   docker run --rm fabricpulse --help
# Build stage: the project's own build (tests are the CI's job, not the image build's).
FROM maven:3.9.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -Dexec.skip -Dasciidoctor.skip package -pl app -am

FROM eclipse-temurin:17.0.14_7-jre
RUN groupadd --system fabricpulse \
 && useradd --system --gid fabricpulse --home-dir /var/lib/fabricpulse --shell /usr/sbin/nologin fabricpulse \
 && mkdir -p /opt/fabricpulse /etc/fabricpulse /var/lib/fabricpulse \
 && chown fabricpulse:fabricpulse /var/lib/fabricpulse
COPY --from=build /src/app/target/fabricpulse.jar /opt/fabricpulse/fabricpulse.jar
COPY alert-rules/ /etc/fabricpulse/rules/
COPY collectors/collector.yaml /etc/fabricpulse/collector.yaml.example
USER fabricpulse:fabricpulse
WORKDIR /var/lib/fabricpulse
# Avro 1.12.2 instantiates generated classes only from trusted packages (as the launcher does).
ENTRYPOINT ["java", "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.fabricpulse.avro", "-XX:+UseG1GC", "-XX:MaxRAMPercentage=75", "-Xss4m", "-jar", "/opt/fabricpulse/fabricpulse.jar"]
CMD ["--help"]
