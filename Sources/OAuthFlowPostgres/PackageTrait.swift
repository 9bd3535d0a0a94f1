// OAuthFlowPostgres is built only with the package trait Postgres (Package.swift): without, it says so in one sentence.
#if !(Postgres)
#error("OAuthFlowPostgres needs the package trait Postgres: .package(…, traits: [\"Postgres\"]), or tick it in Xcode's package traits")
#endif
