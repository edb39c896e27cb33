// Lets the test harnesses (assembly Harness) set what the libraries set
// internally (an identity's netId, NGO's singleton); compiled into the
// declaration assemblies for the tests only, never into a client.
[assembly: System.Runtime.CompilerServices.InternalsVisibleTo("Harness")]
