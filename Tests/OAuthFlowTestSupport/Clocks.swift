// The clocks (FixedClock, MovableClock, ClockSleeper) are OAuthFlowTesting's, the product hosts test with;
// every test target that imports this module sees them.
@_exported import OAuthFlowTesting
