module interplab

go 1.26.0
