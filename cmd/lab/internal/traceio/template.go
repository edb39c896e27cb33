package traceio

// Template is a CSV trace to start from (GET /traces/template.csv): the
// columns a game logs, documented in comments, and a few rows of two
// entities, one packet lost and one arriving late. It parses as it is.
const Template = `# Interp Lab packet trace: one row per entity per packet copy the client received (or lost).
# Upload it on /traces or import it with: lab trace import FILE -name NAME
#
# Columns (any order, any case; unknown columns are refused):
#   entity  optional  whole-number id of the entity (any ids)
#   seq     optional  the entity's send number; a gap is a loss
#   sent    required  server send time, s
#   arrive  required  client arrival time, s, on the same clock as sent; empty (or nan) = lost
#           (or give delay instead: arrive - sent, s)
#   x,y,z   required  position, m
#   vx,vy,vz required velocity, m/s
#   qx,qy,qz,qw optional orientation as a unit quaternion (or a yaw column, radians)
# Lines starting with # are comments. Rows may come in any order (an arrival-order log is fine).
entity,seq,sent,arrive,x,y,z,vx,vy,vz,qx,qy,qz,qw
0,1,0.000,0.041,0.00,0,0,7,0,0,0,0,0,1
1,1,0.000,0.043,5.00,0,0,0,7,0,0,0,0.70711,0.70711
0,2,0.050,0.092,0.35,0,0,7,0,0,0,0,0,1
1,2,0.050,,5.00,0.35,0,0,7,0,0,0,0.70711,0.70711
0,3,0.100,0.139,0.70,0,0,7,0,0,0,0,0,1
1,3,0.100,0.168,5.00,0.70,0,0,7,0,0,0,0.70711,0.70711
0,4,0.150,0.190,1.05,0,0,7,0,0,0,0,0,1
1,4,0.150,0.192,5.00,1.05,0,0,7,0,0,0,0.70711,0.70711
`
