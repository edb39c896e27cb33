package lightyear

// Name is the technique's vocabulary name and its cases' library field.
const Name = "lightyear"
