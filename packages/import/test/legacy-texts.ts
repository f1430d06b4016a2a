// Bank-statement phrases in languages whose banks export in a legacy encoding (the payee and purpose texts of
// card payments, transfers, salaries, utilities), and the header words of such an export: the material of the
// encoding tests. Written from the languages, not copied from any bank's file. Not here, and read as Latin-1 more
// often than not when a file is short: Latvian and Croatian (their letters in Windows-1257/1250 read as other Latin
// letters in Windows-1252, and no header word tells them apart), which --encoding reads right.

export interface LegacyLanguage {
  /** The encoding its banks' "ANSI" exports use (a WHATWG name). */
  encoding: string;
  header: [date: string, text: string, amount: string, balance: string];
  phrases: readonly string[];
}

export const LEGACY_LANGUAGES: Record<string, LegacyLanguage> = {
  polish: {
    encoding: 'windows-1250',
    header: ['Data operacji', 'Opis transakcji', 'Kwota', 'Saldo po transakcji'],
    phrases: [
      'Płatność kartą ŻABKA Kraków',
      'Przelew przychodzący – wynagrodzenie za marzec',
      'Opłata za prąd, Tauron Łódź',
      'Zakupy spożywcze Biedronka Gdańsk',
      'Wypłata z bankomatu, Poznań',
      'Czynsz za mieszkanie – ul. Świętokrzyska',
      'Bilet miesięczny ZTM Warszawa',
      'Apteka Słoneczna, Wrocław',
    ],
  },
  czech: {
    encoding: 'windows-1250',
    header: ['Datum', 'Zpráva pro příjemce', 'Částka', 'Zůstatek'],
    phrases: [
      'Nákup: Albert Hypermarket, Praha',
      'Výplata mzdy za březen',
      'Platba kartou – Kaufland Brno',
      'Inkaso: ČEZ Prodej, elektřina',
      'Příchozí úhrada od Jiří Dvořák',
      'Nájemné – byt Žižkov',
      'Poplatek za vedení účtu',
      'Lékárna U Zlatého lva, Plzeň',
    ],
  },
  hungarian: {
    encoding: 'windows-1250',
    header: ['Tranzakció dátuma', 'Közlemény', 'Összeg', 'Egyenleg'],
    phrases: [
      'Vásárlás: Tesco Áruház Budapest',
      'Munkabér átutalás – március',
      'Közüzemi díj, ELMŰ',
      'Kártyás fizetés Spar Győr',
      'Készpénzfelvétel, Debrecen',
      'Lakbér – Örs vezér tér',
      'Gyógyszertár, Szeged',
      'Bérlet BKK havi',
    ],
  },
  russian: {
    encoding: 'windows-1251',
    header: ['Дата операции', 'Описание операции', 'Сумма', 'Остаток'],
    phrases: [
      'Оплата в магазине Пятёрочка, Москва',
      'Зачисление заработной платы',
      'Оплата услуг ЖКХ за март',
      'Перевод от Ивана Петровича',
      'Снятие наличных в банкомате',
      'Аптека Здоровье, Санкт-Петербург',
      'Покупка билетов РЖД',
      'Кафе Шоколадница',
    ],
  },
  ukrainian: {
    encoding: 'windows-1251',
    header: ['Дата', 'Опис операції', 'Сума', 'Залишок'],
    phrases: [
      'Сільпо, Київ',
      'Заробітна плата за березень',
      'Оплата комунальних послуг',
      'Покупка в магазині АТБ, Львів',
      'Переказ від Олени Шевченко',
      'Аптека Подорожник, Одеса',
      'Поповнення мобільного Київстар',
      'Кав’ярня Львівська майстерня шоколаду',
    ],
  },
  japanese: {
    encoding: 'shift_jis',
    header: ['日付', '摘要', '金額', '残高'],
    phrases: [
      'セブンイレブン 渋谷店',
      '給与振込 株式会社サンプル',
      '電気料金 東京電力',
      'アマゾン ジャパン',
      'ローソン 新宿駅前',
      '家賃 振込',
      'ＪＲ東日本 定期券',
      'スターバックス 梅田',
    ],
  },
  chinese: {
    encoding: 'gbk',
    header: ['交易日期', '交易摘要', '交易金额', '账户余额'],
    phrases: [
      '美团外卖 午餐',
      '工资 代发',
      '国家电网 电费',
      '支付宝 转账 张三',
      '京东商城 购物',
      '房租 转账',
      '中国移动 话费充值',
      '星巴克 上海',
    ],
  },
  korean: {
    encoding: 'euc-kr',
    header: ['거래일자', '적요', '거래금액', '잔액'],
    phrases: [
      '체크카드 이마트 성수점',
      '급여 입금',
      '한국전력 전기요금',
      '스타벅스 강남점',
      '편의점 GS25',
      '월세 이체',
      '교통카드 충전',
      '쿠팡 결제',
    ],
  },
  turkish: {
    encoding: 'windows-1254',
    header: ['Tarih', 'Açıklama', 'Tutar', 'Bakiye'],
    phrases: [
      'Migros Şişli ödeme',
      'Maaş ödemesi – Mart',
      'Elektrik faturası, Enerjisa',
      'Kartlı alışveriş, Kadıköy',
      'Kira ödemesi – Üsküdar',
      'Eczane Güneş, İzmir',
      'İstanbulkart dolum',
      'Çay ocağı, Beşiktaş',
    ],
  },
  greek: {
    encoding: 'windows-1253',
    header: ['Ημερομηνία', 'Περιγραφή', 'Ποσό', 'Υπόλοιπο'],
    phrases: [
      'Αγορά ΣΚΛΑΒΕΝΙΤΗΣ Αθήνα',
      'Μισθοδοσία Μαρτίου',
      'ΔΕΗ λογαριασμός ρεύματος',
      'Φαρμακείο Κηφισιά',
      'Ανάληψη μετρητών',
      'Ενοίκιο διαμερίσματος',
      'Καφετέρια Θεσσαλονίκη',
      'Σούπερ μάρκετ Μασούτης',
    ],
  },
  bulgarian: {
    encoding: 'windows-1251',
    header: ['Дата', 'Описание', 'Сума', 'Салдо'],
    phrases: [
      'Плащане с карта Лидл София',
      'Заплата за март',
      'ЧЕЗ електричество',
      'Превод от Иван Петров',
      'Кафе Пловдив',
      'Аптека Субра',
      'Наем за апартамент',
      'Теглене от банкомат, Варна',
    ],
  },
  hebrew: {
    encoding: 'windows-1255',
    header: ['תאריך', 'תיאור', 'סכום', 'יתרה'],
    phrases: [
      'שופרסל דיל תל אביב',
      'משכורת חודש מרץ',
      'חברת החשמל לישראל',
      'העברה מאת יוסי כהן',
      'ארומה אספרסו בר',
      'ארנונה עיריית חיפה',
      'סופר פארם ירושלים',
      'משיכת מזומן',
    ],
  },
  arabic: {
    encoding: 'windows-1256',
    header: ['التاريخ', 'الوصف', 'المبلغ', 'الرصيد'],
    phrases: [
      'كارفور دبي',
      'راتب شهر مارس',
      'فاتورة الكهرباء',
      'تحويل من أحمد علي',
      'مقهى القاهرة',
      'صيدلية النهدي',
      'إيجار الشقة',
      'سحب نقدي من الصراف',
    ],
  },
  thai: {
    encoding: 'windows-874',
    header: ['วันที่', 'รายการ', 'จำนวนเงิน', 'คงเหลือ'],
    phrases: [
      'เซเว่น อีเลฟเว่น สาขาสีลม',
      'เงินเดือน มีนาคม',
      'ค่าไฟฟ้า การไฟฟ้านครหลวง',
      'โอนเงินจาก สมชาย ใจดี',
      'ร้านกาแฟ อเมซอน',
      'ท็อปส์ ซูเปอร์มาร์เก็ต',
      'ค่าเช่าห้อง',
      'ถอนเงินสด',
    ],
  },
};

/** Western languages whose banks' legacy exports are Windows-1252, which detection must keep. */
export const LATIN_1_LANGUAGES: Record<string, LegacyLanguage> = {
  german: {
    encoding: 'windows-1252',
    header: ['Buchungstag', 'Verwendungszweck', 'Betrag', 'Saldo'],
    phrases: [
      'REWE Markt Köln, Einkauf',
      'Gehalt März – Müller GmbH',
      'Stromabschlag Stadtwerke München',
      'Bäckerei Schäfer',
      'Überweisung Miete Düsseldorf',
      'Apotheke am Marktplatz',
      'Tankstelle Würzburg',
      'Grüße von Oma – Geschenk',
    ],
  },
  french: {
    encoding: 'windows-1252',
    header: ['Date', 'Libellé', 'Montant', 'Solde'],
    phrases: [
      'CARTE CARREFOUR ÉVRY',
      'VIR SALAIRE SOCIÉTÉ GÉNÉRALE',
      'PRLV EDF électricité',
      'Boulangerie à Besançon',
      'Loyer – appartement Nîmes',
      'Pharmacie de la Cité, Brûlon',
      'Café crème, gare de Lyon',
      'Remboursement frais d’hôtel',
    ],
  },
  spanish: {
    encoding: 'windows-1252',
    header: ['Fecha', 'Concepto', 'Importe', 'Saldo'],
    phrases: [
      'Compra tarjeta Mercadona Logroño',
      'Nómina empresa – marzo',
      'Recibo Iberdrola electricidad',
      'Cafetería La Coruña',
      'Alquiler piso, Cádiz',
      'Farmacia Muñoz, Málaga',
      'Transferencia de José Núñez',
      'Panadería El Niño',
    ],
  },
  portuguese: {
    encoding: 'windows-1252',
    header: ['Data', 'Descrição', 'Valor', 'Saldo'],
    phrases: [
      'Compra cartão Pingo Doce, Lisboa',
      'Salário de março',
      'Pagamento EDP eletricidade',
      'Padaria São João',
      'Renda – apartamento Évora',
      'Farmácia Estação, Coimbra',
      'Transferência de João Gonçalves',
      'Café Ação, Braga',
    ],
  },
  swedish: {
    encoding: 'windows-1252',
    header: ['Bokföringsdag', 'Text', 'Belopp', 'Saldo'],
    phrases: [
      'ICA Nära Göteborg',
      'Lön mars',
      'Elräkning Vattenfall',
      'Kortköp Åhléns Malmö',
      'Hyra lägenhet Östermalm',
      'Apotek Hjärtat, Umeå',
      'Swish från Björn Åström',
      'Fika på Café Älven',
    ],
  },
  italian: {
    encoding: 'windows-1252',
    header: ['Data', 'Descrizione', 'Importo', 'Saldo'],
    phrases: [
      'Pagamento POS Esselunga Milano',
      'Stipendio marzo – Società Rossi',
      'Bolletta Enel energia',
      'Caffè della Città, Forlì',
      'Affitto appartamento, Cantù',
      'Farmacia Sant’Anna',
      'Bonifico da Niccolò Bianchi',
      'Pizzeria Perché no',
    ],
  },
};
