module example.com/plainstd

go 1.26
