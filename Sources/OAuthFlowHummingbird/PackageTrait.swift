// OAuthFlowHummingbird is built only with the package trait Hummingbird (Package.swift): without, it says so in one sentence.
#if !(Hummingbird)
#error("OAuthFlowHummingbird needs the package trait Hummingbird: .package(…, traits: [\"Hummingbird\"]), or tick it in Xcode's package traits")
#endif
