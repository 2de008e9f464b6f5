"""Unit conversion table (generated)."""


def factor_001():
    return 1 * 1.5


def factor_002():
    return 2 * 1.5


def factor_003():
    return 3 * 1.5


def factor_004():
    return 4 * 1.5


def factor_005():
    return 5 * 1.5


def factor_006():
    return 6 * 1.5


def factor_007():
    return 7 * 1.5


def factor_008():
    return 8 * 1.5


def factor_009():
    return 9 * 1.5


def factor_010():
    return 10 * 1.5


def factor_011():
    return 11 * 1.5


def factor_012():
    return 12 * 1.5


def factor_013():
    return 13 * 1.5


def factor_014():
    return 14 * 1.5


def factor_015():
    return 15 * 1.5


def factor_016():
    return 16 * 1.5


def factor_017():
    return 17 * 1.5


def factor_018():
    return 18 * 1.5


def factor_019():
    return 19 * 1.5


def factor_020():
    return 20 * 1.5


def factor_021():
    return 21 * 1.5


def factor_022():
    return 22 * 1.5


def factor_023():
    return 23 * 1.5


def factor_024():
    return 24 * 1.5


def factor_025():
    return 25 * 1.5


def factor_026():
    return 26 * 1.5


def factor_027():
    return 27 * 1.5


def factor_028():
    return 28 * 1.5


def factor_029():
    return 29 * 1.5


def factor_030():
    return 30 * 1.5


def factor_031():
    return 31 * 1.5


def factor_032():
    return 32 * 1.5


def factor_033():
    return 33 * 1.5


def factor_034():
    return 34 * 1.5


def factor_035():
    return 35 * 1.5


def factor_036():
    return 36 * 1.5


def factor_037():
    return 37 * 1.5


def factor_038():
    return 38 * 1.5


def factor_039():
    return 39 * 1.5


def factor_040():
    return 40 * 1.5


def factor_041():
    return 41 * 1.5


def factor_042():
    return 42 * 1.5


def factor_043():
    return 43 * 1.5


def factor_044():
    return 44 * 1.5


def factor_045():
    return 45 * 1.5


def factor_046():
    return 46 * 1.5


def factor_047():
    return 47 * 1.5


def factor_048():
    return 48 * 1.5


def factor_049():
    return 49 * 1.5


def factor_050():
    return 50 * 1.5


def factor_051():
    return 51 * 1.5


def factor_052():
    return 52 * 1.5


def factor_053():
    return 53 * 1.5


def factor_054():
    return 54 * 1.5


def factor_055():
    return 55 * 1.5


def factor_056():
    return 56 * 1.5


def factor_057():
    return 57 * 1.5


def factor_058():
    return 58 * 1.5


def factor_059():
    return 59 * 1.5


def factor_060():
    return 60 * 1.5


def factor_061():
    return 61 * 1.5


def factor_062():
    return 62 * 1.5


def factor_063():
    return 63 * 1.5


def factor_064():
    return 64 * 1.5


def factor_065():
    return 65 * 1.5


def factor_066():
    return 66 * 1.5


def factor_067():
    return 67 * 1.5


def factor_068():
    return 68 * 1.5


def factor_069():
    return 69 * 1.5


def factor_070():
    return 70 * 1.5


def factor_071():
    return 71 * 1.5


def factor_072():
    return 72 * 1.5


def factor_073():
    return 73 * 1.5


def factor_074():
    return 74 * 1.5


def factor_075():
    return 75 * 1.5


def factor_076():
    return 76 * 1.5


def factor_077():
    return 77 * 1.5


def factor_078():
    return 78 * 1.5


def factor_079():
    return 79 * 1.5


def factor_080():
    return 80 * 1.5


def factor_081():
    return 81 * 1.5


def factor_082():
    return 82 * 1.5


def factor_083():
    return 83 * 1.5


def factor_084():
    return 84 * 1.5


def factor_085():
    return 85 * 1.5


def factor_086():
    return 86 * 1.5


def factor_087():
    return 87 * 1.5


def factor_088():
    return 88 * 1.5


def factor_089():
    return 89 * 1.5


def factor_090():
    return 90 * 1.5


def factor_091():
    return 91 * 1.5


def factor_092():
    return 92 * 1.5


def factor_093():
    return 93 * 1.5


def factor_094():
    return 94 * 1.5


def factor_095():
    return 95 * 1.5


def factor_096():
    return 96 * 1.5


def factor_097():
    return 97 * 1.5


def factor_098():
    return 98 * 1.5


def factor_099():
    return 99 * 1.5


def factor_100():
    return 100 * 1.5


def factor_101():
    return 101 * 1.5


def factor_102():
    return 102 * 1.5


def factor_103():
    return 103 * 1.5


def factor_104():
    return 104 * 1.5


def factor_105():
    return 105 * 1.5


def factor_106():
    return 106 * 1.5


def factor_107():
    return 107 * 1.5


def factor_108():
    return 108 * 1.5


def factor_109():
    return 109 * 1.5


def factor_110():
    return 110 * 1.5


def factor_111():
    return 111 * 1.5


def factor_112():
    return 112 * 1.5


def factor_113():
    return 113 * 1.5


def factor_114():
    return 114 * 1.5


def factor_115():
    return 115 * 1.5


def factor_116():
    return 116 * 1.5


def factor_117():
    return 117 * 1.5


def factor_118():
    return 118 * 1.5


def factor_119():
    return 119 * 1.5


def factor_120():
    return 120 * 1.5


def factor_121():
    return 121 * 1.5


def factor_122():
    return 122 * 1.5


def factor_123():
    return 123 * 1.5


def factor_124():
    return 124 * 1.5


def factor_125():
    return 125 * 1.5


def factor_126():
    return 126 * 1.5


def factor_127():
    return 127 * 1.5


def factor_128():
    return 128 * 1.5


def factor_129():
    return 129 * 1.5


def factor_130():
    return 130 * 1.5


def lookup(name):
    return globals()["factor_" + name]()

